import 'reflect-metadata';
import { IsBoolean, IsInt, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { DomainError } from '@svc/domain';
import { DisplayTextField, PatternField, StringField } from './fields';
import { createValidationPipe } from './validation';

class Products {
  @IsOptional()
  @IsBoolean({ message: 'products.gate: must be a boolean' })
  gate?: boolean;
}

class Body {
  @IsOptional()
  @IsInt({ message: 'ttlSeconds: must be an integer from 60 to 3600' })
  @Min(60, { message: 'ttlSeconds: must be an integer from 60 to 3600' })
  @Max(3600, { message: 'ttlSeconds: must be an integer from 60 to 3600' })
  ttlSeconds?: number;

  @IsOptional()
  @IsInt()
  plain?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => Products)
  products?: Products;
}

async function refusal(value: unknown): Promise<{ code: string; message: string }> {
  try {
    await createValidationPipe().transform(value, { type: 'body', metatype: Body });
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return { code: (err as DomainError).code, message: (err as DomainError).message };
  }
  throw new Error('expected a refusal');
}

describe('validation pipe messages (spec §7: the message names the field)', () => {
  it('names the field once when the DTO message already names it', async () => {
    expect(await refusal({ ttlSeconds: 59 })).toEqual({ code: 'invalid_request', message: 'ttlSeconds: must be an integer from 60 to 3600' });
    expect(await refusal({ products: { gate: 'yes' } })).toEqual({ code: 'invalid_request', message: 'products.gate: must be a boolean' });
  });

  it('prefixes the field path to a message that does not name it, and names unknown fields', async () => {
    expect((await refusal({ plain: 1.5 })).message).toMatch(/^plain: /);
    expect(await refusal({ extra: 1 })).toEqual({ code: 'invalid_request', message: 'extra: unknown field' });
  });
});

class Lengths {
  @StringField(2, 4)
  note!: string;

  @PatternField(/^https:\/\/\S+$/, 9, 12, 'url: must be an HTTPS URL', 'invalid_url', { presence: 'optional' })
  url?: string;
}

describe('string lengths count code points (spec §8 "chars", OpenAPI maxLength)', () => {
  const outcome = async (body: object) => {
    try {
      await createValidationPipe().transform(body, { type: 'body', metatype: Lengths });
      return 'ok';
    } catch (err) {
      return (err as DomainError).code;
    }
  };

  it('an emoji is one character, an unpaired surrogate is refused', async () => {
    expect(await outcome({ note: '😀😀😀😀' })).toBe('ok');
    expect(await outcome({ note: '😀😀😀😀😀' })).toBe('invalid_request');
    expect(await outcome({ note: '😀' })).toBe('invalid_request');
    expect(await outcome({ note: 'ab' })).toBe('ok');
    expect(await outcome({ note: 'a\ud800' })).toBe('invalid_request');
    expect(await outcome({ note: 'abc', url: 'https://é.😀' })).toBe('ok');
    expect(await outcome({ note: 'abc', url: 'https://a.bcdef' })).toBe('invalid_url');
  });
});

class Display {
  @DisplayTextField(1, 8)
  label!: string;
}

describe('display text follows the protocol\'s text rule (docs/api.md "Errors and limits", docs/protocol.md §1.1)', () => {
  const outcome = async (label: string) => {
    try {
      await createValidationPipe().transform({ label }, { type: 'body', metatype: Display });
      return 'ok';
    } catch (err) {
      return `${(err as DomainError).code}: ${(err as DomainError).message}`;
    }
  };

  it('refuses C0 and C1 control characters (line feed, carriage return, tab, NEL) and unpaired surrogates', async () => {
    for (const bad of ['a\nb', 'a\rb', 'a\tb', 'a\u000bb', 'a\u0085b', 'a\u007fb', 'a\u009fb', 'a\udc00']) {
      expect(await outcome(bad)).toBe('invalid_request: label: must be 1 to 8 characters without control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates');
    }
  });

  it('keeps the line and paragraph separators U+2028 and U+2029, as version titles do', async () => {
    expect(await outcome('a\u2028b')).toBe('ok');
    expect(await outcome('a\u2029b')).toBe('ok');
  });
});
