// Which links token metadata and drops may store (decision 89): what one project stores reaches
// every marketplace page that shows its tokens, so only schemes a page can follow safely, and of
// inline media only raster images, which carry no script (MediaUrl, src/schemas/common.ts).
import { describe, expect, it } from "vitest";
import { TokenMetadataSchema } from "../../src/schemas/resources";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject } from "../helpers/projects";

const metadataWith = (field: "image" | "animationUrl" | "externalUrl", value: string) => TokenMetadataSchema.safeParse({ name: "x", [field]: value });

const SVG = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0iYWxlcnQoMSkiLz4=";
/** Every data: URL but a raster image's, each a way a page could be made to run or open a document. */
const REFUSED_INLINE = [
  SVG,
  "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>",
  "DATA:IMAGE/SVG+XML;charset=utf-8,%3Csvg%20onload%3Dalert(1)%3E",
  "data: image/svg+xml,<svg onload=alert(1)>",
  "data:image/png+xml,<svg onload=alert(1)>",
  "data:image/svg+xml;x=image/png,<svg onload=alert(1)>",
  "data:text/html,<script>alert(1)</script>",
  "data:application/xhtml+xml,<html xmlns='http://www.w3.org/1999/xhtml'><script>alert(1)</script></html>",
  "data:,<svg onload=alert(1)>",
  "data:video/mp4;base64,AAAA",
  "data:audio/mpeg;base64,AAAA",
  "data:model/gltf-binary;base64,AAAA",
];

describe("links in token metadata", () => {
  it("accepts web, IPFS, IPNS and Arweave links everywhere, and inline raster images for image and animationUrl", () => {
    const links = ["https://example.com/1.png", "http://example.com/1", "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.png", "ipns://k51qzi5uqu5dl/1", "ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U"];
    for (const field of ["image", "animationUrl", "externalUrl"] as const) {
      for (const link of links) expect(metadataWith(field, link).success, `${field} ${link}`).toBe(true);
    }
    const inline = ["data:image/png;base64,iVBORw0KGgo=", "data:image/jpeg;base64,/9j/4AAQ", "data:image/gif;base64,R0lGODlh", "data:image/webp;base64,UklGRg==", "data:image/avif;base64,AAAAIGZ0eXA=", "DATA:IMAGE/PNG;BASE64,iVBORw0KGgo="];
    for (const field of ["image", "animationUrl"] as const) {
      for (const media of inline) expect(metadataWith(field, media).success, `${field} ${media.slice(0, 20)}`).toBe(true);
    }
    expect(metadataWith("externalUrl", inline[0]!).success).toBe(false);
  });

  it("refuses script, file and HTML links, and every data: URL but a raster image's, with one message at the field", () => {
    for (const field of ["image", "animationUrl", "externalUrl"] as const) {
      for (const value of ["javascript:alert(1)", "file:///etc/passwd", "vbscript:msgbox(1)", "not a url", ...REFUSED_INLINE]) {
        const parsed = metadataWith(field, value);
        expect(parsed.success, `${field} ${value}`).toBe(false);
        expect(parsed.error!.issues.filter((issue) => issue.path[0] === field), `${field} ${value}`).toHaveLength(1);
      }
    }
  });
});

describe("an SVG image", () => {
  it("is a 400 at the field wherever metadata or media is stored: deploy, claim, mint, collections", async () => {
    const project = await createTestProject("SVG images");
    const target = { contractAddress: "0x000000000000000000000000000000000000dEaD", recipientAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" };
    const cases: [string, Record<string, unknown>, string][] = [
      ["/v1/project-wallet/drops/deploy", { name: "Scripted", metadataStorageType: "metadata-api", defaultTokenMetadata: { name: "x", image: SVG } }, "body.defaultTokenMetadata.image"],
      ["/v1/project-wallet/drops/claim", { ...target, overrideMetadata: [{ name: "x", animationUrl: SVG }] }, "body.overrideMetadata.0.animationUrl"],
      ["/v1/project-wallet/mint", { ...target, metadata: { name: "x", image: SVG } }, "body.metadata.image"],
    ];
    for (const [path, body, field] of cases) {
      const error = expectEnvelope(await call(path, { secretKey: project.secretKey, body }), 400, "validation_error");
      expect(error.details, path).toContainEqual({ path: field, message: expect.stringContaining("PNG, JPEG, GIF, WebP or AVIF") });
    }
    const collection = { contractAddress: "0x000000000000000000000000000000000000dEaD", slug: "svg-image", imageUrl: SVG };
    const error = expectEnvelope(await call("/v1/admin/collections", { admin: true, body: collection }), 400, "validation_error");
    expect(error.details?.map((detail) => detail.path)).toEqual(["body.imageUrl"]);
  });
});
