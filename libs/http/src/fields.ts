import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ValidateBy, ValidateIf } from 'class-validator';
import type { ErrorCode } from '@svc/domain';
import { VERSION_LABEL_MAX, VERSION_TITLE_MAX, ed25519PublicKeyProblem, isEffectiveAt, isText, isVersionLabel, isVersionTitle, isWellFormedText } from '@svc/evidence';
import { ADDR, P256ID, SIG, isAddress, isSignature, isSigner } from './patterns';

/**
 * Request-body field decorators: each pairs the OpenAPI description of a field with the one predicate
 * that validates it, so that the edge applies exactly the rule the evidence protocol applies later
 * (docs/protocol.md, "Field rules"; spec "Conventions" and §4). A failed field is a 400 whose code is the
 * spec's code for that field (the validation pipe reads it from the constraint's context).
 */

/** Whether a field must be present, may be absent, or may also be null. */
export type Presence = 'required' | 'optional' | 'nullable';

export interface FieldOptions {
  description?: string;
  /** Default `required`. `optional`: absent is fine, null is not. `nullable`: absent and null are fine. */
  presence?: Presence;
}

/**
 * One rule: `test` must hold for the value; otherwise `<field>: <message>` with `code`.
 * The OpenAPI schema of the field is `schema`.
 */
function field(name: string, test: (value: unknown) => boolean, message: string, code: ErrorCode, schema: ApiPropertyOptions, options: FieldOptions) {
  const presence = options.presence ?? 'required';
  const doc = { ...schema, ...(options.description ? { description: options.description } : {}) } as ApiPropertyOptions;
  const decorators: PropertyDecorator[] = [
    presence === 'required' ? ApiProperty(doc) : ApiPropertyOptional({ ...doc, ...(presence === 'nullable' ? { nullable: true } : {}) } as ApiPropertyOptions),
  ];
  // `undefined` (absent) skips an optional field; `null` is a value, refused unless the field is nullable.
  if (presence === 'optional') decorators.push(ValidateIf((_, v) => v !== undefined));
  if (presence === 'nullable') decorators.push(ValidateIf((_, v) => v !== undefined && v !== null));
  decorators.push(ValidateBy({ name, validator: { validate: (v: unknown) => test(v), defaultMessage: () => message } }, { context: { code } }));
  return applyDecorators(...decorators);
}

/** ADDR: base58, 32 to 44 characters, decoding to 32 bytes; otherwise `invalid_address`. */
export const AddressField = (options: FieldOptions = {}) =>
  field('isAddress', isAddress, 'must be a base58 address of 32 bytes', 'invalid_address', { type: String, pattern: ADDR.source, minLength: 32, maxLength: 44 }, options);

/** SIG: base58, 64 to 90 characters, decoding to 64 bytes; otherwise `invalid_signature`. */
export const SignatureField = (options: FieldOptions = {}) =>
  field('isSignature', isSignature, 'must be a base58 signature of 64 bytes', 'invalid_signature', { type: String, pattern: SIG.source, minLength: 64, maxLength: 90 }, options);

/**
 * An address that must be able to sign: an Ed25519 public key that strict verification accepts (docs/protocol.md
 * §13), so neither a point of small order (the identity, for which one signature verifies every message) nor a
 * non-canonical encoding. Values that are not addresses pass here and are judged by the field's format rule.
 */
const signingKey = (code: ErrorCode) =>
  ValidateBy(
    {
      name: 'isStrictEd25519Key',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || !isAddress(v) || ed25519PublicKeyProblem(v) === null,
        defaultMessage: () => 'must be an Ed25519 public key that can sign: a point of small order or a non-canonical encoding cannot',
      },
    },
    { context: { code } },
  );

/** ADDR or P256ID; otherwise `invalid_signer`. An ADDR must be a key that can sign (`signingKey`), else `invalid_signer`. */
export const SignerField = (options: FieldOptions = {}) =>
  applyDecorators(
    field('isSigner', isSigner, 'must be a base58 address of 32 bytes or a p256 identity', 'invalid_signer', { type: String, pattern: `${ADDR.source}|${P256ID.source}`, minLength: 32, maxLength: 71 }, options),
    signingKey('invalid_signer'),
  );

/** A wallet address that signs (ADDR, and a key that can sign, `signingKey`); otherwise `invalid_address`. */
export const WalletAddressField = (options: FieldOptions = {}) => applyDecorators(AddressField(options), signingKey('invalid_address'));

/**
 * Characters of `s` as spec §8 and JSON Schema's `maxLength` count them: Unicode code points (a surrogate pair is
 * one; an unpaired surrogate counts one too).
 */
function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Whether `v` is a string of `min` to `max` code points ({@link codePointLength}); most strings are decided by their UTF-16 length alone. */
function hasLength(v: unknown, min: number, max: number): v is string {
  if (typeof v !== 'string' || v.length < min || v.length > 2 * max) return false;
  if (v.length <= max && v.length >= 2 * min) return true;
  const n = codePointLength(v);
  return n >= min && n <= max;
}

/**
 * A well-formed string (no unpaired surrogate, which neither UTF-8 nor RFC 8785 can carry) of `min` to `max`
 * characters (code points, as spec §8 and the OpenAPI `maxLength` count them); otherwise `invalid_request`.
 */
export const StringField = (min: number, max: number, options: FieldOptions = {}) =>
  field(
    'isStringOfLength',
    (v) => hasLength(v, min, max) && isWellFormedText(v),
    `must be a well-formed string of ${min} to ${max} characters`,
    'invalid_request',
    { type: String, minLength: min, maxLength: max },
    options,
  );

/** A string of `min` to `max` code points, well-formed or not (the caller judges that with its own code). */
const lengthField = (min: number, max: number, options: FieldOptions) =>
  field('isStringOfLength', (v) => hasLength(v, min, max), `must be a string of ${min} to ${max} characters`, 'invalid_request', { type: String, minLength: min, maxLength: max }, options);

/**
 * Display text (a name, a label, a description; spec §8 "chars"): `min` to `max` Unicode code points, no control
 * characters (U+0000–U+001F, U+007F–U+009F: line feeds, carriage returns, tabs and NEL among them) or unpaired
 * surrogates, the rule of version titles and labels (docs/protocol.md §1.1); the separators U+2028 and U+2029 are
 * ordinary characters there. Otherwise `invalid_request`.
 */
export const DisplayTextField = (min: number, max: number, options: FieldOptions = {}) =>
  field('isDisplayText', (v) => isText(v, min, max), `must be ${min} to ${max} characters without control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates`, 'invalid_request', { type: String, minLength: min, maxLength: max }, options);

/** A string matching `pattern` (a whole-value regular expression) of `min` to `max` characters (code points); otherwise `code`. */
export const PatternField = (pattern: RegExp, min: number, max: number, message: string, code: ErrorCode = 'invalid_request', options: FieldOptions = {}) =>
  field('isPattern', (v) => hasLength(v, min, max) && pattern.test(v), message, code, { type: String, pattern: pattern.source, minLength: min, maxLength: max }, options);

const PAGE_SIZE = /^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$/;

/**
 * Query parameter `limit`: a page size of 1 to 200 written in decimal without leading zeros (spec §8, default 50);
 * otherwise `invalid_request`. Declared as the integer it is, so that generated clients take a number.
 */
export const PageSizeQuery = (options: Omit<FieldOptions, 'presence'> = {}) =>
  field('isPageSize', (v) => typeof v === 'string' && PAGE_SIZE.test(v), 'must be an integer from 1 to 200', 'invalid_request', { type: 'integer', minimum: 1, maximum: 200, default: 50 }, {
    description: 'Page size, 1 to 200, default 50',
    ...options,
    presence: 'optional',
  });

/** One of `values`; otherwise `invalid_request`. */
export const EnumField = (values: readonly string[], options: FieldOptions = {}) =>
  field('isOneOf', (v) => typeof v === 'string' && values.includes(v), `must be one of ${values.join(', ')}`, 'invalid_request', { type: String, enum: [...values] }, options);

/** Text of a version (`ver` memo, fingerprint): 1 to `max` code points, no control characters or unpaired surrogates. */
const versionText = (name: string, test: (value: unknown) => boolean, max: number, options: FieldOptions) =>
  field(name, test, `must be 1 to ${max} characters without control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates`, 'invalid_request', { type: String, minLength: 1, maxLength: max }, options);

/** Version title: 1 to 200 code points (see `versionText`). */
export const VersionTitleField = (options: FieldOptions = {}) => versionText('isVersionTitle', isVersionTitle, VERSION_TITLE_MAX, options);

/** Version label: 1 to 16 code points (see `versionText`). */
export const VersionLabelField = (options: FieldOptions = {}) => versionText('isVersionLabel', isVersionLabel, VERSION_LABEL_MAX, options);

/** Effective date: integer Unix seconds from 1 to 2^53-1, or null; otherwise `invalid_effective_date`. Always nullable. */
export const EffectiveAtField = (options: Omit<FieldOptions, 'presence'> = {}) =>
  field(
    'isEffectiveAt',
    isEffectiveAt,
    'must be an integer from 1 to 9007199254740991 (Unix seconds) or null',
    'invalid_effective_date',
    { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Unix seconds; null: effective on publication' },
    { ...options, presence: 'nullable' },
  );

/**
 * Document source: 1 to `max` characters (code points; `invalid_request`) of well-formed text, i.e. no unpaired
 * surrogate, which is what canonical content needs (`invalid_content`).
 */
export const DocumentSourceField = (max: number, options: FieldOptions = {}) =>
  applyDecorators(
    lengthField(1, max, options),
    ValidateBy(
      { name: 'isWellFormedText', validator: { validate: (v: unknown) => typeof v !== 'string' || isWellFormedText(v), defaultMessage: () => 'must not contain unpaired UTF-16 surrogates' } },
      { context: { code: 'invalid_content' } },
    ),
  );
