import { getChain } from "../../lib/chains";
import type { AppRouteHandler } from "../app-types";
import { trendingCollections } from "../../services/collections/trending";
import { serviceContext } from "../../services/context";
import type { trending } from "./collections.routes";

export const trendingHandler: AppRouteHandler<typeof trending> = async (c) => {
  const { chainId, period, limit } = c.req.valid("query");
  getChain(c.env, chainId);
  const data = await trendingCollections(serviceContext(c.env), { chainId, period, limit });
  return c.json({ data, period }, 200);
};
