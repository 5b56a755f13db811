package usage

import (
	"fmt"
	"strconv"
	"strings"
)

// Rate is what an operator pays a provider, in Rates' currency.
type Rate struct {
	RunningHour float64 // per instance-hour running (or being created)
	PausedHour  float64 // per instance-hour paused
}

// Rates are the operator's rates by provider name; a provider without one
// leaves the cost of its usage unestimated.
type Rates map[string]Rate

// DefaultCurrency is the currency of rates when the operator names none.
const DefaultCurrency = "USD"

// ParseRate reads a rate written as running=0.10,paused=0.01: each part
// optional (0 when left out), none negative.
func ParseRate(s string) (Rate, error) {
	var r Rate
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return Rate{}, fmt.Errorf("%q must be name=amount, such as running=0.10", part)
		}
		amount, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || amount < 0 || amount != amount || amount > 1e9 {
			return Rate{}, fmt.Errorf("%s must be an amount of 0 or more, such as 0.10, not %q", name, value)
		}
		switch strings.TrimSpace(name) {
		case "running":
			r.RunningHour = amount
		case "paused":
			r.PausedHour = amount
		default:
			return Rate{}, fmt.Errorf("%q is not a rate: running and paused are (each per instance-hour)", name)
		}
	}
	return r, nil
}

// ReadRates reads AUXILIA_COST_<PROVIDER> (the provider's name in capitals,
// - as _) for each provider, and AUXILIA_COST_CURRENCY, reporting every bad
// variable.
func ReadRates(getenv func(string) string, providers []string) (Rates, string, []error) {
	rates := Rates{}
	var errs []error
	for _, p := range providers {
		name := EnvName(p)
		v := getenv(name)
		if strings.TrimSpace(v) == "" {
			continue
		}
		r, err := ParseRate(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		rates[p] = r
	}
	currency := strings.TrimSpace(getenv("AUXILIA_COST_CURRENCY"))
	if currency == "" {
		currency = DefaultCurrency
	} else if len(currency) != 3 || strings.ToUpper(currency) != currency || strings.Trim(currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		errs = append(errs, fmt.Errorf("AUXILIA_COST_CURRENCY must be an ISO 4217 code such as USD or EUR, not %q", currency))
	}
	return rates, currency, errs
}

// EnvName is the variable that holds a provider's rate.
func EnvName(provider string) string {
	return "AUXILIA_COST_" + strings.ToUpper(strings.ReplaceAll(provider, "-", "_"))
}
