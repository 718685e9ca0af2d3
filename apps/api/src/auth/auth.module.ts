import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { SharedModule } from '@svc/application';
import { AuthController } from './auth.controller';
import { FreshSignatureGuard } from './fresh-signature.guard';
import { SessionGuard, SignOutGuard } from './session.guard';
import { SignInHandlers } from './sign-in.handlers';

@Module({
  imports: [CqrsModule, SharedModule],
  controllers: [AuthController],
  providers: [...SignInHandlers, SessionGuard, SignOutGuard, FreshSignatureGuard],
  exports: [SessionGuard, FreshSignatureGuard],
})
export class AuthModule {}
