"""PostgreSQL itself keeps the moderation log append-only, as it does the events.

Row triggers refuse UPDATE and DELETE, a statement trigger refuses TRUNCATE: a moderator's
act, once recorded, is never changed or removed, whoever asks.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION games_moderation_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'games_moderation_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Moderation acts are on the record; record a new act instead.';
END;
$$;

CREATE TRIGGER games_moderation_log_no_update_delete
    BEFORE UPDATE OR DELETE ON games_moderation_log
    FOR EACH ROW EXECUTE FUNCTION games_moderation_log_refuse_change();

CREATE TRIGGER games_moderation_log_no_truncate
    BEFORE TRUNCATE ON games_moderation_log
    FOR EACH STATEMENT EXECUTE FUNCTION games_moderation_log_refuse_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_moderation_log_no_truncate ON games_moderation_log;
DROP TRIGGER IF EXISTS games_moderation_log_no_update_delete ON games_moderation_log;
DROP FUNCTION IF EXISTS games_moderation_log_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0004_moderation")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
