package kubetest

import (
	"fmt"
	"net"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// embeddedEtcd is a single-member etcd on loopback ports picked free.
type embeddedEtcd struct {
	server    *embed.Etcd
	clientURL string
}

func startEtcd(dataDir string) (*embeddedEtcd, error) {
	clientURL, err := freeLoopbackURL()
	if err != nil {
		return nil, err
	}
	peerURL, err := freeLoopbackURL()
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Name = "kubetest"
	cfg.Dir = dataDir
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	cfg.LogLevel = "fatal"
	if verbose() {
		cfg.LogLevel = "info"
	}
	cfg.UnsafeNoFsync = true

	server, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-server.Server.ReadyNotify():
	case err := <-server.Err():
		server.Close()
		return nil, fmt.Errorf("etcd failed while starting: %w", err)
	case <-time.After(time.Minute):
		server.Close()
		return nil, fmt.Errorf("etcd not ready after a minute")
	}
	return &embeddedEtcd{server: server, clientURL: clientURL.String()}, nil
}

func (e *embeddedEtcd) stop() {
	e.server.Close()
}

// freeLoopbackURL asks the kernel for a free port on 127.0.0.1. The port is
// released before etcd binds it, which is the usual small race tests accept.
func freeLoopbackURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pick a free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, err
	}
	return &url.URL{Scheme: "http", Host: addr}, nil
}
