import { Injectable, PipeTransform } from '@nestjs/common';
import { DomainError, type ErrorCode } from '@svc/domain';
import { HEX64, SLUG, UUID, isAddress, isSignature, isSigner } from './patterns';

/** A format: a regular expression the whole value must match, or a predicate. */
export type Format = RegExp | ((value: string) => boolean);

/**
 * Validates one path or query parameter against a format, and gives it in its canonical form (`normalize`).
 * @throws DomainError with `code` (400; default `invalid_request`) and the message `<name>: invalid format`.
 */
@Injectable()
export class MatchPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly name: string,
    private readonly format: Format,
    private readonly code: ErrorCode = 'invalid_request',
    private readonly normalize: (value: string) => string = (value) => value,
  ) {}
  transform(value: unknown): string {
    const ok = typeof value === 'string' && (typeof this.format === 'function' ? this.format(value) : this.format.test(value));
    if (!ok) throw new DomainError(this.code, `${this.name}: invalid format`);
    return this.normalize(value);
  }
}

/** ADDR path parameter (32-byte base58 address, spec "Conventions"); otherwise 400 `invalid_address`. */
export const AddressParam = (name = 'address') => new MatchPipe(name, isAddress, 'invalid_address');
/** HEX64 path parameter; otherwise 400 `invalid_request`. */
export const Hex64Param = (name: string) => new MatchPipe(name, HEX64);
/** SIG path parameter (64-byte base58 signature); otherwise 400 `invalid_signature`. */
export const SignatureParam = (name = 'signature') => new MatchPipe(name, isSignature, 'invalid_signature');
/** Signer path parameter: ADDR or P256ID; otherwise 400 `invalid_signer`. */
export const SignerParam = (name = 'publicKey') => new MatchPipe(name, isSigner, 'invalid_signer');
/**
 * UUID path parameter, in lower case: UUIDs are case-insensitive on input and written in lower case (RFC 9562 §4), as
 * every id this service issues is; otherwise 400 `invalid_request`.
 */
export const UuidParam = (name: string) => new MatchPipe(name, UUID, 'invalid_request', (value) => value.toLowerCase());
/** SLUG path parameter; otherwise 400 `invalid_request`. */
export const SlugParam = (name = 'slug') => new MatchPipe(name, SLUG);
