package kubetest

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// addressBlock is a block of loopback addresses, 127.B.0.0/16, that this
// test process alone gives its Pods: two test binaries run at once (go test
// ./... runs packages in parallel) must not give two Pods the same address,
// where one sandboxd would take the other's ports. The block is held by an
// exclusive lock on a file of its own, which ends with the process.
type addressBlock struct {
	second int
	lock   *os.File
}

// claimAddressBlock takes the first block no other process holds,
// starting from one picked by the process id, so that processes started
// together seldom try the same block first.
func claimAddressBlock() (*addressBlock, error) {
	const blocks = 250
	start := os.Getpid() % blocks
	for i := range blocks {
		second := 1 + (start+i)%blocks
		path := filepath.Join(os.TempDir(), fmt.Sprintf("kubetest-addresses-%d.lock", second))
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			return &addressBlock{second: second, lock: f}, nil
		}
		_ = f.Close()
	}
	return nil, fmt.Errorf("every block of loopback addresses is held by another test process")
}

// address is the block's nth Pod address, from 127.B.0.2 on.
func (b *addressBlock) address(n int) string {
	return fmt.Sprintf("127.%d.%d.%d", b.second, n/250, n%250+2)
}

// release lets another process take the block.
func (b *addressBlock) release() { _ = b.lock.Close() }
