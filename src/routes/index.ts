import { adminRouter } from "./admin/admin.index";
import { assetsRouter } from "./assets/assets.index";
import { collectionsRouter } from "./collections/collections.index";
import { dropsRouter } from "./drops/drops.index";
import { healthRouter } from "./health/health.index";
import { metadataRouter } from "./metadata/metadata.index";
import { ordersRouter } from "./orders/orders.index";
import { projectWalletRouter } from "./project-wallet/project-wallet.index";
import { transactionsRouter } from "./transactions/transactions.index";
import { webhooksRouter } from "./webhooks/webhooks.index";

export const routers = [healthRouter, adminRouter, dropsRouter, assetsRouter, collectionsRouter, transactionsRouter, projectWalletRouter, ordersRouter, metadataRouter, webhooksRouter];
