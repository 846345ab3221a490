/** Stylesheets imported for their effect: esbuild bundles every one of them into dist/app.css. */
declare module "*.css";
