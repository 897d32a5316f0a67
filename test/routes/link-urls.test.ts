// Which links token metadata and drops may store (decision 89): what one project stores reaches
// every marketplace page that shows its tokens, so only schemes a page can follow safely.
import { describe, expect, it } from "vitest";
import { TokenMetadataSchema } from "../../src/schemas/resources";

const metadataWith = (field: "image" | "animationUrl" | "externalUrl", value: string) => TokenMetadataSchema.safeParse({ name: "x", [field]: value });

describe("links in token metadata", () => {
  it("accepts web, IPFS, IPNS and Arweave links everywhere, and inline media for image and animationUrl", () => {
    const links = ["https://example.com/1.png", "http://example.com/1", "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.png", "ipns://k51qzi5uqu5dl/1", "ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U"];
    for (const field of ["image", "animationUrl", "externalUrl"] as const) {
      for (const link of links) expect(metadataWith(field, link).success, `${field} ${link}`).toBe(true);
    }
    const inline = ["data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=", "data:video/mp4;base64,AAAA", "data:audio/mpeg;base64,AAAA", "data:model/gltf-binary;base64,AAAA"];
    for (const field of ["image", "animationUrl"] as const) {
      for (const media of inline) expect(metadataWith(field, media).success, `${field} ${media.slice(0, 20)}`).toBe(true);
    }
    expect(metadataWith("externalUrl", inline[0]!).success).toBe(false);
  });

  it("refuses script, file and HTML links with one message at the field", () => {
    for (const field of ["image", "animationUrl", "externalUrl"] as const) {
      for (const value of ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd", "vbscript:msgbox(1)", "not a url"]) {
        const parsed = metadataWith(field, value);
        expect(parsed.success, `${field} ${value}`).toBe(false);
        expect(parsed.error!.issues.filter((issue) => issue.path[0] === field), `${field} ${value}`).toHaveLength(1);
      }
    }
  });
});
