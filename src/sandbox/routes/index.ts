// Every route of the sandbox core, one file per recipe.
import type { Route } from '../context.js';
import { accountLinkingRoutes } from './accountlinking.js';
import { coreRoutes } from './core.js';
import { emailPasswordRoutes } from './emailpassword.js';
import { emailVerificationRoutes } from './emailverification.js';
import { licenseRoutes } from './license.js';
import { multitenancyRoutes } from './multitenancy.js';
import { passwordlessRoutes } from './passwordless.js';
import { thirdPartyRoutes } from './thirdparty.js';
import { totpRoutes } from './totp.js';
import { userIdMappingRoutes } from './useridmapping.js';
import { userRoutes } from './users.js';
import { byAccountInfoRoutes } from './by-accountinfo.js';
import { removalRoutes } from './removal.js';
import { metadataRoleRoutes } from './metadata-roles.js';
import { bulkImportRoutes } from '../bulk/routes.js';
import { passwordResetRoutes } from './password-reset.js';
import { sessionRoutes } from './session.js';

export const ROUTES: Route[] = [
  ...coreRoutes,
  ...emailPasswordRoutes,
  ...passwordResetRoutes,
  ...emailVerificationRoutes,
  ...thirdPartyRoutes,
  ...passwordlessRoutes,
  ...totpRoutes,
  ...accountLinkingRoutes,
  ...userIdMappingRoutes,
  ...userRoutes,
  ...byAccountInfoRoutes,
  ...removalRoutes,
  ...metadataRoleRoutes,
  ...bulkImportRoutes,
  ...licenseRoutes,
  ...multitenancyRoutes,
  ...sessionRoutes,
];
