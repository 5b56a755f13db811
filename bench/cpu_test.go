package main

import (
	"os"
	"syscall"
	"testing"
)

// The page faults read from /proc/<pid>/stat are the ones the kernel
// counts for the process in its resource usage too: read between two
// readings of getrusage, they lie between them.
func TestMinorFaultsAreTheProcesssOwn(t *testing.T) {
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		t.Fatal(err)
	}
	faults, err := minorFaults(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		t.Fatal(err)
	}
	if faults < before.Minflt || faults > after.Minflt {
		t.Fatalf("minorFaults = %d, getrusage said %d before and %d after", faults, before.Minflt, after.Minflt)
	}
	if faults == 0 {
		t.Fatal("a running process has taken page faults")
	}
}
