package mergepatch

import (
	"encoding/json"
	"testing"
)

// FuzzApply: any document and patch either fail to decode or give valid
// JSON, and applying the same patch again changes nothing (merge patches
// are idempotent).
func FuzzApply(f *testing.F) {
	f.Add(`{"a":"b","c":{"d":1}}`, `{"a":null,"c":{"e":[1,2]}}`)
	f.Add(`[1,2]`, `{"a":1}`)
	f.Add(`{}`, `null`)
	f.Add(``, `{"x":{"y":{"z":null}}}`)
	f.Fuzz(func(t *testing.T, doc, patch string) {
		once, err := Apply(json.RawMessage(doc), json.RawMessage(patch))
		if err != nil {
			return
		}
		if !json.Valid(once) {
			t.Fatalf("%s + %s gave invalid JSON %s", doc, patch, once)
		}
		twice, err := Apply(once, json.RawMessage(patch))
		if err != nil {
			t.Fatalf("reapplying failed: %v", err)
		}
		var a, b any
		_ = json.Unmarshal(once, &a)
		_ = json.Unmarshal(twice, &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("not idempotent: %s then %s", once, twice)
		}
	})
}
