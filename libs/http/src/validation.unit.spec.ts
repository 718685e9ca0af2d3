import 'reflect-metadata';
import { IsBoolean, IsInt, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { DomainError } from '@svc/domain';
import { PatternField, StringField } from './fields';
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
