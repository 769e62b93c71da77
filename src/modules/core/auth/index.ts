export { createAuthService, type AuthService } from './auth.service.js';
export { authRoutes } from './auth.routes.js';
export { createCredentialResolver } from './credential-resolver.js';
export { emailOfUser, emailsOfUsers, lockUser, userIdOfEmail } from './users.read-model.js';
