import { Injectable, PipeTransform } from '@nestjs/common';
import { DomainError, type ErrorCode } from '@svc/domain';
import { ADDR, HEX64, SIG, SLUG, UUID } from './patterns';

/** Validates one path or query parameter against a format, failing with the spec's code (400). */
@Injectable()
export class MatchPipe implements PipeTransform<string, string> {
  constructor(private readonly name: string, private readonly pattern: RegExp, private readonly code: ErrorCode = 'invalid_request') {}
  transform(value: string): string {
    if (typeof value !== 'string' || !this.pattern.test(value)) {
      throw new DomainError(this.code, `${this.name}: invalid format`);
    }
    return value;
  }
}

export const AddressParam = (name = 'address') => new MatchPipe(name, ADDR, 'invalid_address');
export const Hex64Param = (name: string) => new MatchPipe(name, HEX64);
export const SignatureParam = (name = 'signature') => new MatchPipe(name, SIG, 'invalid_signature');
export const UuidParam = (name: string) => new MatchPipe(name, UUID);
export const SlugParam = (name = 'slug') => new MatchPipe(name, SLUG);
