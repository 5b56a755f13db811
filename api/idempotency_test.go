package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keptRows reads every column of the idempotency table as text, as anyone
// holding the database (or a backup of it) would.
func (e *env) keptRows() []string {
	sqlDB, err := e.db.SQL()
	require.NoError(e.t, err)
	rows, err := sqlDB.QueryContext(context.Background(), "SELECT token_id, idem_key, request_hash, headers, body FROM idempotency_keys")
	require.NoError(e.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cols [5]string
		require.NoError(e.t, rows.Scan(&cols[0], &cols[1], &cols[2], &cols[3], &cols[4]))
		out = append(out, strings.Join(cols[:], "\n"))
	}
	require.NoError(e.t, rows.Err())
	return out
}

func TestIdempotentAnswersAreSealedAtRest(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		body := map[string]any{"name": "kept-token"}
		first := e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "seal-1")
		require.Equal(t, 201, first.StatusCode)
		value := first.json(t)["token"].(string)
		require.True(t, strings.HasPrefix(value, "aux_"))

		sb := e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "kept-sandbox", "provider": "daytona",
			"secret": "dtn_kept-secret-0123456789"}, "Idempotency-Key", "seal-2")
		require.Equal(t, 201, sb.StatusCode)

		rows := e.keptRows()
		require.Len(t, rows, 2)
		for _, row := range rows {
			assert.NotContains(t, row, strings.TrimPrefix(value, "aux_"), "the token's value is not at rest")
			assert.NotContains(t, row, "kept-secret", "nor the sandbox's secret")
			assert.NotContains(t, row, "kept-token", "the answer is sealed, not just stripped of the value")
			assert.NotContains(t, row, "kept-sandbox")
		}

		// A retry gets the first answer whole: the same token, which works.
		again := e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "seal-1")
		require.Equal(t, 201, again.StatusCode)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, string(first.body), string(again.body))
		assert.Equal(t, 200, e.call("GET", "/api/v1/me", value, nil).StatusCode)
	})
}

func TestAnAnswerThatCannotBeOpenedIsNotReplayed(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		body := map[string]any{"name": "kept-token"}
		require.Equal(t, 201, e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "k").StatusCode)

		// As kept before answers were sealed, or sealed with a key since dropped.
		sqlDB, err := e.db.SQL()
		require.NoError(t, err)
		query := "UPDATE idempotency_keys SET body = ? WHERE idem_key = ?"
		if e.db.Dialect() == store.Postgres {
			query = "UPDATE idempotency_keys SET body = $1 WHERE idem_key = $2"
		}
		_, err = sqlDB.ExecContext(context.Background(), query, `{"key_id":"0123456789ab","ciphertext":"AAAA"}`, "k")
		require.NoError(t, err)

		p := e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "k").problem(t, 409, "conflict")
		assert.Contains(t, p["detail"], "use a new key")
	})
}
