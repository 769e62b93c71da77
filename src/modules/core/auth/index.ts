export { createAuthService, type AuthService, type ScopedTokenScope } from './auth.service.js';
export { authRoutes } from './auth.routes.js';
export { createCredentialResolver } from './credential-resolver.js';
