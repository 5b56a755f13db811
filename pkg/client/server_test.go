package client_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// The examples drive the real binary, built and started once for them.
var (
	serverURL string
	token     = "aux_ClientExampleToken0123456789abcdefghijklmno"
)

var listening = regexp.MustCompile(`"msg":"listening","url":"(http://[^"]+)"`)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "auxilia-client-")
	if err != nil {
		panic(err)
	}
	code := run(m, dir)
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(m *testing.M, dir string) int {
	binary := filepath.Join(dir, "auxilia")
	build := exec.Command("go", "build", "-o", binary, "./cmd/auxilia")
	build.Dir = "../.." // the server's module
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build auxilia:", err)
		return 1
	}
	srv := exec.Command(binary, "serve")
	srv.Env = append(os.Environ(), "AUXILIA_LISTEN=127.0.0.1:0", "AUXILIA_DATA_DIR="+dir, "DATABASE_URL=",
		"AUXILIA_SECRET_KEYS=", "AUXILIA_BOOTSTRAP_TOKEN="+token)
	logs, err := srv.StderrPipe()
	if err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start auxilia:", err)
		return 1
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(logs)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	select {
	case serverURL = <-urls:
	case <-time.After(time.Minute):
		fmt.Fprintln(os.Stderr, "auxilia did not listen within a minute")
		return 1
	}
	return m.Run()
}
