import { createRouter } from "../../lib/create-router";
import { getProjectWalletHandler } from "./project-wallet.handlers";
import { getProjectWallet } from "./project-wallet.routes";

export const projectWalletRouter = createRouter().openapi(getProjectWallet, getProjectWalletHandler);
