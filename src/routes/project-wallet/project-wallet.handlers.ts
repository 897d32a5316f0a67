import type { AppRouteHandler } from "../../lib/types";
import { serviceContext } from "../../services/context";
import { projectWalletInfo } from "../../services/project-wallet/wallet-info";
import type { getProjectWallet } from "./project-wallet.routes";

export const getProjectWalletHandler: AppRouteHandler<typeof getProjectWallet> = async (c) => {
  return c.json(await projectWalletInfo(serviceContext(c.env), c.get("auth").projectId), 200);
};
