package kubetest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const (
	processGRPCPort = "9090"
	processRESTPort = "8080"
)

// volumeBind places a host folder at a path inside a Pod's filesystem.
type volumeBind struct {
	hostDir   string
	mountPath string
}

// podProcess is one Pod's sandboxd, alone in its own mount and PID
// namespaces with a root of its own: the host's /usr, /etc and libraries
// read-only, a fresh /tmp, and the Pod's volumes where its container mounts
// them. Commands it runs cannot reach the host's other files, and they all
// end when the process does.
type podProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// isolateScript builds the Pod's root under $1, binds the volume pairs that
// follow up to "--", and execs the rest chrooted. The namespaces are private,
// so none of these mounts is seen by the host.
const isolateScript = `set -e
mount --make-rprivate /
root="$1"; shift
mount -t tmpfs -o mode=0755 podroot "$root"
for d in usr etc opt bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ]; then
		ln -s "$(readlink "/$d")" "$root/$d"
	elif [ -d "/$d" ]; then
		mkdir -p "$root/$d"
		mount --rbind "/$d" "$root/$d"
		mount -o remount,bind,ro "$root/$d"
	fi
done
mkdir -p "$root/dev" "$root/proc" "$root/tmp" "$root/.kubetest"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=1777 podtmp "$root/tmp"
while [ "$1" != "--" ]; do
	mkdir -p "$root$2"
	mount --bind "$1" "$root$2"
	shift 2
done
shift
touch "$root/.kubetest/sandboxd"
mount --bind -o ro "$1" "$root/.kubetest/sandboxd"
shift
exec chroot "$root" /.kubetest/sandboxd "$@"
`

// startPodProcess runs sandboxd for one Pod on ip, with rootDir as its
// sandbox root inside the Pod's filesystem, and waits until both of its
// ports accept connections.
func startPodProcess(sandboxd, scratch, ip, rootDir string, binds []volumeBind, env []string) (*podProcess, error) {
	root := filepath.Join(scratch, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	args := []string{"--mount", "--pid", "--fork", "--kill-child", "sh", "-c", isolateScript, "pod", root}
	for _, b := range binds {
		args = append(args, b.hostDir, b.mountPath)
	}
	args = append(args, "--", sandboxd,
		"--listen-host="+ip,
		"--grpc-port="+processGRPCPort,
		"--rest-port="+processRESTPort,
		"--root-dir="+rootDir,
		"--shutdown-timeout=1s",
	)
	cmd := exec.Command("unshare", args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	logFile, err := os.Create(filepath.Join(scratch, "sandboxd.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start sandboxd: %w", err)
	}
	p := &podProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	if err := p.waitListening(ip); err != nil {
		p.stop()
		out, _ := os.ReadFile(logFile.Name())
		return nil, fmt.Errorf("%w; sandboxd output: %s", err, strings.TrimSpace(string(out)))
	}
	return p, nil
}

func (p *podProcess) waitListening(ip string) error {
	deadline := time.Now().Add(30 * time.Second)
	for _, port := range []string{processGRPCPort, processRESTPort} {
		addr := net.JoinHostPort(ip, port)
		for {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-p.done:
				return fmt.Errorf("sandboxd exited before listening on %s: %v", addr, p.err)
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("sandboxd not listening on %s after 30s", addr)
			}
		}
	}
	return nil
}

// stop kills the Pod's namespace: unshare's death takes its child, the
// namespace's first process, and with it every process in the namespace.
func (p *podProcess) stop() {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return
	}
	<-p.done
}
