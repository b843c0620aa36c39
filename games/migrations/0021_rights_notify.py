"""PostgreSQL itself says when an account's rights end, whoever ends them.

Every server process listens on the channel ``scorpion_rights`` (``games.live.rights``) and
closes the WebSockets that depended on what a notification names. The notifications come
from triggers, so they are sent whichever way the change is made (the API, the admin, a
management command, an operator's SQL), and only when its transaction commits:

- ``u:<user id>``: an account's password, ``is_active``, ``is_staff`` or ``is_superuser``
  changed, or the account was deleted, or the player was banned;
- ``k:<key id>``: an API key was deleted (revoked, expired, or past the account's count);
- ``s:<md5 of the session key>``: a session ended (signed out, flushed, cleared).

A row that changes nothing of these (a key's last use, a login's ``last_login``) sends
nothing. PostgreSQL sends a payload once per transaction however often it is notified.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION games_rights_account() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('scorpion_rights', 'u:' || OLD.id);
    ELSE
        PERFORM pg_notify('scorpion_rights', 'u:' || NEW.id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER games_rights_account_changed
    AFTER UPDATE OF password, is_active, is_staff, is_superuser ON auth_user
    FOR EACH ROW
    WHEN (OLD.password IS DISTINCT FROM NEW.password
          OR OLD.is_active IS DISTINCT FROM NEW.is_active
          OR OLD.is_staff IS DISTINCT FROM NEW.is_staff
          OR OLD.is_superuser IS DISTINCT FROM NEW.is_superuser)
    EXECUTE FUNCTION games_rights_account();

CREATE TRIGGER games_rights_account_deleted
    AFTER DELETE ON auth_user
    FOR EACH ROW EXECUTE FUNCTION games_rights_account();

CREATE FUNCTION games_rights_banned() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('scorpion_rights', 'u:' || NEW.user_id);
    RETURN NULL;
END;
$$;

CREATE TRIGGER games_rights_ban_inserted
    AFTER INSERT ON games_player
    FOR EACH ROW WHEN (NEW.banned)
    EXECUTE FUNCTION games_rights_banned();

CREATE TRIGGER games_rights_ban_updated
    AFTER UPDATE OF banned ON games_player
    FOR EACH ROW WHEN (NEW.banned AND NOT OLD.banned)
    EXECUTE FUNCTION games_rights_banned();

CREATE FUNCTION games_rights_key() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('scorpion_rights', 'k:' || OLD.id);
    RETURN NULL;
END;
$$;

CREATE TRIGGER games_rights_key_deleted
    AFTER DELETE ON games_api_key
    FOR EACH ROW EXECUTE FUNCTION games_rights_key();

CREATE FUNCTION games_rights_session() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('scorpion_rights', 's:' || md5(OLD.session_key));
    RETURN NULL;
END;
$$;

CREATE TRIGGER games_rights_session_deleted
    AFTER DELETE ON django_session
    FOR EACH ROW EXECUTE FUNCTION games_rights_session();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_rights_session_deleted ON django_session;
DROP FUNCTION IF EXISTS games_rights_session();
DROP TRIGGER IF EXISTS games_rights_key_deleted ON games_api_key;
DROP FUNCTION IF EXISTS games_rights_key();
DROP TRIGGER IF EXISTS games_rights_ban_updated ON games_player;
DROP TRIGGER IF EXISTS games_rights_ban_inserted ON games_player;
DROP FUNCTION IF EXISTS games_rights_banned();
DROP TRIGGER IF EXISTS games_rights_account_deleted ON auth_user;
DROP TRIGGER IF EXISTS games_rights_account_changed ON auth_user;
DROP FUNCTION IF EXISTS games_rights_account();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_accounts"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("sessions", "0001_initial"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
