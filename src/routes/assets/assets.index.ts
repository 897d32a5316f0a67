import { createRouter } from "../create-router";
import { exploreAssetsHandler, getAssetHandler } from "./assets.handlers";
import { exploreAssets, getAsset } from "./assets.routes";

// explore is registered first so `/v1/assets/explore` never matches the three-segment route.
export const assetsRouter = createRouter().openapi(exploreAssets, exploreAssetsHandler).openapi(getAsset, getAssetHandler);
