package workload

import (
	"context"
	"encoding/json"

	"github.com/cairn-bench/cairn/internal/target"
)

// Every workload keeps two records in its meta table: "state" ("loading" while prepare runs,
// "complete" once it has finished) and "meta" (the workload's JSON description of what was
// prepared). get and put are the dialect's meta_get and meta_put statements.

// ReadMeta decodes the "meta" record into m if prepare finished. It reports false when the state
// is not "complete" or a record is missing or unreadable: the schema then counts as partial.
func ReadMeta(ctx context.Context, c target.Conn, get string, m any) bool {
	var state, js string
	if err := c.QueryRow(ctx, get, "state").Scan(&state); err != nil || state != "complete" {
		return false
	}
	if err := c.QueryRow(ctx, get, "meta").Scan(&js); err != nil {
		return false
	}
	return json.Unmarshal([]byte(js), m) == nil
}

// SetState writes the "state" record.
func SetState(ctx context.Context, c target.Conn, put, state string) error {
	_, err := c.Exec(ctx, put, "state", state)
	return err
}

// PutMeta writes m as the "meta" record.
func PutMeta(ctx context.Context, c target.Conn, put string, m any) error {
	js, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, put, "meta", string(js))
	return err
}

// Complete writes m as the "meta" record, then marks prepare complete: the order matters, as a
// "complete" state promises a readable description.
func Complete(ctx context.Context, c target.Conn, put string, m any) error {
	if err := PutMeta(ctx, c, put, m); err != nil {
		return err
	}
	return SetState(ctx, c, put, "complete")
}
