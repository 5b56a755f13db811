package main

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

func TestQuietTripsTakesEachRoundTripBothWays(t *testing.T) {
	ctx := context.Background()
	const n, quiet = 5, 20 * time.Millisecond
	start := time.Now()
	got, err := measureQuietTrips(ctx, storetest.PostgresURL(), n, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pause != quiet || got.BackToBack.requests() != n || got.AfterAPause.requests() != n {
		t.Fatalf("got a pause of %s and %d, %d trips; want %s and %d each", got.Pause, got.BackToBack.requests(),
			got.AfterAPause.requests(), quiet, n)
	}
	// The pauses are waited out, and are not in the trips' times.
	took := time.Since(start)
	if took < n*quiet {
		t.Fatalf("the trips took %s in all, less than their %d pauses", took, n)
	}
	var paused time.Duration
	for _, d := range got.AfterAPause.latencies {
		paused += d
	}
	if paused >= n*quiet {
		t.Fatalf("the trips after a pause took %s together: the pauses were counted in them", paused)
	}
}

func TestQuietTripsSaysWhenPostgresCannotBeReached(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := measureQuietTrips(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable", 1, time.Millisecond); err == nil {
		t.Fatal("no error for a Postgres that is not there")
	}
}
