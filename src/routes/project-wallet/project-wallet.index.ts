import { createRouter } from "../create-router";
import * as handlers from "./project-wallet.handlers";
import * as routes from "./project-wallet.routes";

export const projectWalletRouter = createRouter()
  .openapi(routes.getProjectWallet, handlers.getProjectWalletHandler)
  .openapi(routes.deployDrop, handlers.deployDropHandler)
  .openapi(routes.claim, handlers.claimHandler)
  .openapi(routes.mint, handlers.mintHandler)
  .openapi(routes.transfer, handlers.transferHandler)
  .openapi(routes.buyOrders, handlers.buyOrdersHandler);
