export { createJournalService, type JournalService } from './journal.service.js';
export { journalRoutes } from './journal.routes.js';
export { authorityOf, sourceOf, type DiffEntry, type JournalAuthority, type JournalSource } from './journal.model.js';
export { DiffEntrySchema } from './journal.schemas.js';
export { definitionDiff } from './definition-diff.js';
