package main

import (
	"testing"

	metering "github.com/auxilia/sandboxes/pkg/usage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCostRatesAreReadForTheBuiltInProviders(t *testing.T) {
	env := map[string]string{"AUXILIA_COST_RATES": "e2b:running=0.10,paused=0.01;daytona:running=0.08", "AUXILIA_COST_CURRENCY": "EUR"}
	var errs []error
	rates, currency := costRates(func(k string) string { return env[k] }, &errs)
	require.Empty(t, errs)
	assert.Equal(t, metering.Rates{"e2b": {RunningHour: 0.10, PausedHour: 0.01}, "daytona": {RunningHour: 0.08}}, rates)
	assert.Equal(t, "EUR", currency)

	env = map[string]string{"AUXILIA_COST_RATES": "nosuch:running=1", "AUXILIA_COST_CURRENCY": "euros"}
	errs = nil
	_, _ = costRates(func(k string) string { return env[k] }, &errs)
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Error(), "AUXILIA_COST_RATES")
	assert.Contains(t, errs[1].Error(), "AUXILIA_COST_CURRENCY")

	errs = nil
	rates, currency = costRates(func(string) string { return "" }, &errs)
	assert.Empty(t, errs)
	assert.Empty(t, rates, "no rates: no estimate")
	assert.Equal(t, "USD", currency)
}
