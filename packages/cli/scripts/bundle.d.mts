/** Writes the `emq` bundle, `<outdir>/emq.mjs` and `<outdir>/chunks/` (see bundle.mjs). */
export declare function bundleEmq(options: { readonly outdir: string }): Promise<void>;
