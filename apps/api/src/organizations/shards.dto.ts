import { ApiProperty } from '@nestjs/swagger';

/** A capacity shard as the dashboard shows it (docs/protocol.md "Shard record"; docs/api.md "Shards"). */
export class ShardView {
  @ApiProperty({ type: String, description: 'Shard account address (a durable-nonce account)' })
  address!: string;
  @ApiProperty({ type: String, description: 'Organization address' })
  organization!: string;
  @ApiProperty({ type: String, description: "Nonce authority and operator: this service's relayer" })
  operator!: string;
  @ApiProperty({ type: String, description: 'Signature of the creation transaction' })
  creationSignature!: string;
  @ApiProperty({ type: 'integer' })
  slot!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Block time of the creation' })
  createdAt!: string | null;
  @ApiProperty({ type: 'integer', description: 'Lamports the shard held when synced' })
  balanceLamports!: number;
  @ApiProperty({ type: 'integer', description: 'Rent exemption of the account (not spendable), lamports' })
  rentExemptLamports!: number;
  @ApiProperty({ type: 'integer', description: 'balanceLamports minus rentExemptLamports, at least 0' })
  spendableLamports!: number;
  @ApiProperty({ type: String, format: 'date-time' })
  syncedAt!: string;
}

/** `{shard}` */
export class ShardResponse {
  @ApiProperty({ type: ShardView })
  shard!: ShardView;
}

/** `{shards}`, oldest first. */
export class ShardListResponse {
  @ApiProperty({ type: [ShardView] })
  shards!: ShardView[];
}
