/** Field formats of the API (spec "Conventions"). */
export const ADDR = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
export const SIG = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;
export const HEX64 = /^[0-9a-f]{64}$/;
export const UUID = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$/;
export const P256ID = /^p256:0[23][0-9a-f]{64}$/;
export const SLUG = /^(?=.{1,32}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const EXT = /^[\x21-\x7e]{1,128}$/;
export const B64URL = /^[A-Za-z0-9_-]+$/;
