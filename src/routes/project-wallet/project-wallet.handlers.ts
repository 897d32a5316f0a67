import type { AppRouteHandler } from "../app-types";
import { serviceContext } from "../../services/context";
import { mintFromDrop } from "../../services/drops/claim";
import { deployDrop } from "../../services/drops/deploy-drop";
import { buyOrders } from "../../services/project-wallet/buy-orders";
import { transferFromProjectWallet } from "../../services/project-wallet/transfer";
import { projectWalletInfo } from "../../services/project-wallet/wallet-info";
import type { buyOrders as buyRoute, claim, deployDrop as deployRoute, getProjectWallet, mint, transfer } from "./project-wallet.routes";

export const getProjectWalletHandler: AppRouteHandler<typeof getProjectWallet> = async (c) => {
  return c.json(await projectWalletInfo(serviceContext(c.env), c.get("auth").projectId), 200);
};

export const deployDropHandler: AppRouteHandler<typeof deployRoute> = async (c) => {
  const result = await deployDrop(serviceContext(c.env), c.get("auth").projectId, c.req.valid("json"));
  return c.json(result, 201);
};

export const claimHandler: AppRouteHandler<typeof claim> = async (c) => {
  const body = c.req.valid("json");
  const { assets, transaction } = await mintFromDrop(serviceContext(c.env), c.get("auth").projectId, body, "claim");
  return c.json({ assets, transactions: [transaction] }, 201);
};

export const mintHandler: AppRouteHandler<typeof mint> = async (c) => {
  const { metadata, tokenId: _ignoredBecauseTheDropAssignsIds, ...body } = c.req.valid("json");
  const { transaction } = await mintFromDrop(
    serviceContext(c.env),
    c.get("auth").projectId,
    { ...body, ...(metadata ? { metadataForEveryToken: metadata } : {}) },
    "mint",
  );
  return c.json(transaction, 201);
};

export const transferHandler: AppRouteHandler<typeof transfer> = async (c) => {
  return c.json(await transferFromProjectWallet(serviceContext(c.env), c.get("auth").projectId, c.req.valid("json")), 201);
};

export const buyOrdersHandler: AppRouteHandler<typeof buyRoute> = async (c) => {
  return c.json(await buyOrders(serviceContext(c.env), c.get("auth").projectId, c.req.valid("json")), 200);
};
