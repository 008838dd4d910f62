import type { UserInfo } from '@dea/contract';
import { useI18n } from '../../../shared/i18n/i18n-context';
import { formatLastLogin } from '../format-last-login';

/** Full name and last login beside the user menu (spec section 2). */
export function UserSummary({ user }: { user: UserInfo }) {
  const { t, language } = useI18n();
  return (
    <div className="user-summary" data-testid="user-summary">
      <span className="user-name">{user.fullName}</span>
      {user.lastLogin && (
        <span className="last-login">
          {t('user.lastLogin')}:{' '}
          <time dateTime={user.lastLogin} data-testid="last-login">
            {formatLastLogin(user.lastLogin, language)}
          </time>
        </span>
      )}
    </div>
  );
}
