/** Lighting maps made by web/scripts/env-maps.mjs from @pmndrs/assets: the .hdr file's URL. */
declare module 'virtual:env-map/*' {
  const url: string;
  export default url;
}
