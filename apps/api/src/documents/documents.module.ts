import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { DashboardAccess } from '../organizations/access.service';
import { DraftContentController } from './draft-content.controller';
import { ParsedContent } from './parsed-content.service';
import { PublicDocumentsController } from './public-documents.controller';

@Module({
  imports: [AuthModule],
  controllers: [PublicDocumentsController, DraftContentController],
  providers: [DashboardAccess, ParsedContent],
})
export class DocumentsModule {}
