// Core schema v1: the composed advanced configuration document served by GET /api/v1/advanced-config.
// Its types live in @ensign/engine, which SDKs read it with; the schemas that document it are
// advanced.schemas.ts.
export { CORE_SCHEMA_VERSION, type CoreAudience, type CoreDocument, type CoreFlag } from '@ensign/engine';
