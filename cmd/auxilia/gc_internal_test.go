package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTheServerPlansItsGarbageCollector(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	limited := func() (float64, bool) { return 512 << 20, true }
	unlimited := func() (float64, bool) { return 0, false }

	assert.Equal(t, gcSettings{percent: 400, memoryLimit: 483183820}, planGC(env(nil), limited),
		"a quarter as many collections, under nine tenths of the cgroup's memory")
	assert.Equal(t, gcSettings{percent: 400}, planGC(env(nil), unlimited), "no cgroup limit: no memory limit")
	assert.Equal(t, gcSettings{memoryLimit: 483183820}, planGC(env(map[string]string{"GOGC": "150"}), limited),
		"the environment's GOGC is the operator's")
	assert.Equal(t, gcSettings{percent: 400}, planGC(env(map[string]string{"GOMEMLIMIT": "1GiB"}), limited),
		"the environment's GOMEMLIMIT is the operator's")
	assert.Equal(t, gcSettings{}, planGC(env(map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}), limited))
}
