import { getChain } from "../../lib/chains";
import { pageBody } from "../../lib/page";
import type { AppRouteHandler } from "../app-types";
import { exploreAssets, getAsset } from "../../services/assets/read-assets";
import { serviceContext } from "../../services/context";
import type { exploreAssets as exploreRoute, getAsset as getAssetRoute } from "./assets.routes";

export const exploreAssetsHandler: AppRouteHandler<typeof exploreRoute> = async (c) => {
  const query = c.req.valid("query");
  if (query.chainId !== undefined) getChain(c.env, query.chainId);
  return c.json(pageBody(await exploreAssets(serviceContext(c.env), query), query), 200);
};

export const getAssetHandler: AppRouteHandler<typeof getAssetRoute> = async (c) => {
  const { chainId, contractAddress, tokenId } = c.req.valid("param");
  getChain(c.env, chainId);
  return c.json(await getAsset(serviceContext(c.env), chainId, contractAddress, tokenId), 200);
};
