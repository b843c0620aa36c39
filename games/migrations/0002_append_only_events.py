"""PostgreSQL itself keeps the events table append-only.

Row triggers refuse UPDATE and DELETE, a statement trigger refuses TRUNCATE: whatever the
client (Django, psql, a script), a stored event is never changed or removed.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION games_event_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'games_event is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Events are immutable facts; append a new event instead.';
END;
$$;

CREATE TRIGGER games_event_no_update_delete
    BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_refuse_change();

CREATE TRIGGER games_event_no_truncate
    BEFORE TRUNCATE ON games_event
    FOR EACH STATEMENT EXECUTE FUNCTION games_event_refuse_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
DROP TRIGGER IF EXISTS games_event_no_update_delete ON games_event;
DROP FUNCTION IF EXISTS games_event_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0001_event_store")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
