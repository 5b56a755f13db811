package usage

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Rate is what an operator pays a provider, in Rates' currency.
type Rate struct {
	RunningHour float64 // per instance-hour running (or being created)
	PausedHour  float64 // per instance-hour paused
	KeptGiBDay  float64 // per GiB of kept files kept a day
}

// Rates are the operator's rates by provider name; a provider without one
// leaves the cost of its usage unestimated.
type Rates map[string]Rate

// DefaultCurrency is the currency of rates when the operator names none.
const DefaultCurrency = "USD"

// ParseRate reads a rate written as running=0.10,paused=0.01,kept=0.002: each part
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
		case "kept":
			r.KeptGiBDay = amount
		default:
			return Rate{}, fmt.Errorf("%q is not a rate: running and paused are (each per instance-hour), and kept (per GiB-day)", name)
		}
	}
	return r, nil
}

// ParseRates reads the operator's rates, one provider's after another
// (separated by ;), each as provider:running=0.10,paused=0.01,kept=0.002, for the
// providers named in known. It names every bad part.
func ParseRates(s string, known []string) (Rates, []error) {
	rates := Rates{}
	var errs []error
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, rate, ok := strings.Cut(part, ":")
		name = strings.TrimSpace(name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%q must be provider:running=…,paused=…,kept=…", part))
			continue
		case !slices.Contains(known, name):
			errs = append(errs, fmt.Errorf("%q is not a provider: %s are", name, strings.Join(known, ", ")))
			continue
		}
		if _, dup := rates[name]; dup {
			errs = append(errs, fmt.Errorf("%s has two rates", name))
			continue
		}
		r, err := ParseRate(rate)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		rates[name] = r
	}
	return rates, errs
}

// CheckCurrency tells whether code is written as an ISO 4217 code is.
func CheckCurrency(code string) error {
	if len(code) != 3 || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return fmt.Errorf("must be an ISO 4217 code such as USD or EUR, not %q", code)
	}
	return nil
}
