import { ApiProperty } from '@nestjs/swagger';

/** Acceptances confirmed on the ledger for one version of a document, and the network fees they cost. */
export class VersionStat {
  @ApiProperty({ type: String, format: 'uuid' })
  documentId!: string;
  @ApiProperty({ type: String })
  documentSlug!: string;
  @ApiProperty({ type: String, description: 'Version address' })
  version!: string;
  @ApiProperty({ type: 'integer' })
  versionNumber!: number;
  @ApiProperty({ type: 'integer' })
  acceptances!: number;
  @ApiProperty({ type: 'integer', description: 'Network fees of these acceptances, lamports' })
  feeLamports!: number;
}

/** Totals of one document over its versions. */
export class DocumentStat {
  @ApiProperty({ type: String, format: 'uuid' })
  documentId!: string;
  @ApiProperty({ type: String })
  documentSlug!: string;
  @ApiProperty({ type: 'integer' })
  acceptances!: number;
  @ApiProperty({ type: 'integer', description: 'lamports' })
  feeLamports!: number;
  @ApiProperty({ type: [VersionStat], description: 'Newest version first' })
  versions!: VersionStat[];
}

/** Acceptances confirmed on one UTC day. */
export class DayStat {
  @ApiProperty({ type: String, example: '2026-01-31', description: 'UTC day of the confirmation (block time)' })
  day!: string;
  @ApiProperty({ type: 'integer' })
  acceptances!: number;
  @ApiProperty({ type: 'integer', description: 'lamports' })
  feeLamports!: number;
}

/** Organization totals. */
export class StatTotals {
  @ApiProperty({ type: 'integer', description: 'Acceptances confirmed on the ledger' })
  acceptances!: number;
  @ApiProperty({ type: 'integer', description: 'Distinct signers with at least one confirmed acceptance' })
  signers!: number;
  @ApiProperty({ type: 'integer', description: 'Network fees paid for the acceptances, lamports' })
  feeLamports!: number;
}

/** `GET /v1/organizations/{orgId}/stats` (docs/api.md "Stats"). */
export class StatsView {
  @ApiProperty({ type: StatTotals })
  totals!: StatTotals;
  @ApiProperty({ type: [DocumentStat], description: 'By document slug' })
  documents!: DocumentStat[];
  @ApiProperty({ type: [DayStat], description: 'Days with at least one acceptance, oldest first' })
  days!: DayStat[];
}

/** `{stats}` */
export class StatsResponse {
  @ApiProperty({ type: StatsView })
  stats!: StatsView;
}
