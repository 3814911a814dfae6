// Binds every credential and system port to its implementation.
import { ApiKeyMinter, Clock, IdGenerator, PasswordHasher, SecretSealer, TokenSigner } from '@tracelight/ports';
import { ContainerModule } from 'inversify';
import { AesGcmSecretSealer } from './aes-gcm-secret-sealer';
import { CachingPasswordHasher } from './caching-password-hasher';
import { CredentialsConfig } from './config';
import { HmacApiKeyMinter } from './hmac-api-key-minter';
import { JwtTokenSigner } from './jwt-token-signer';
import { ScryptPasswordHasher } from './scrypt-password-hasher';
import { SystemClock } from './system/system-clock';
import { TimeOrderedUuid4IdGenerator } from './system/time-ordered-uuid4-id-generator';

export const credentialsModule = (config: CredentialsConfig) =>
  new ContainerModule(({ bind }) => {
    bind(CredentialsConfig).toConstantValue(config);
    bind(ScryptPasswordHasher).toSelf().inSingletonScope();
    bind(PasswordHasher).to(CachingPasswordHasher).inSingletonScope();
    bind(ApiKeyMinter).to(HmacApiKeyMinter).inSingletonScope();
    bind(TokenSigner).to(JwtTokenSigner).inSingletonScope();
    bind(SecretSealer).to(AesGcmSecretSealer).inSingletonScope();
    bind(Clock).to(SystemClock).inSingletonScope();
    bind(IdGenerator).to(TimeOrderedUuid4IdGenerator).inSingletonScope();
  });
