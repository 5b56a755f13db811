// Package gcstest runs fake-gcs-server, an emulator of Cloud Storage that
// nobody here wrote, in the test's process, behind a check of the bearer
// token as the real service makes it.
package gcstest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// Server is a fake Cloud Storage with the given buckets.
type Server struct {
	*httptest.Server
	// Token, when set, is the only bearer token accepted.
	Token string
	// Requests counts the calls that reached the emulator.
	Requests atomic.Int64

	fake *fakestorage.Server
}

// NewServer starts a fake with the given buckets; Close stops it.
func NewServer(buckets ...string) *Server {
	s := &Server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		NoListener: true,
		// Resumable uploads go on at the address the emulator names.
		ExternalURL: "http://" + s.Listener.Addr().String(),
		PublicHost:  s.Listener.Addr().String(),
		Writer:      discard{},
	})
	if err != nil {
		panic("gcstest: " + err.Error())
	}
	s.fake = fake
	for _, b := range buckets {
		fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b})
	}
	s.Start()
	return s
}

// Close stops the fake.
func (s *Server) Close() {
	s.Server.Close()
	s.fake.Stop()
}

// Object returns the stored bytes of bucket/name.
func (s *Server) Object(bucket, name string) ([]byte, bool) {
	obj, err := s.fake.GetObject(bucket, name)
	if err != nil {
		return nil, false
	}
	return obj.Content, true
}

// Objects lists the names in bucket that start with prefix.
func (s *Server) Objects(bucket, prefix string) []string {
	objs, _, err := s.fake.ListObjectsWithOptions(bucket, fakestorage.ListOptions{Prefix: prefix})
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(objs))
	for _, o := range objs {
		names = append(names, o.Name)
	}
	return names
}

// PutObject stores data as bucket/name, as another writer would.
func (s *Server) PutObject(bucket, name string, data []byte) {
	s.fake.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name}, Content: data})
}

// serve refuses a call without the token, as Cloud Storage does, with its
// error document; the emulator answers the others.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": http.StatusUnauthorized, "message": "Invalid Credentials",
			"errors": []map[string]string{{"domain": "global", "reason": "authError", "message": "Invalid Credentials"}},
		}})
		return
	}
	s.Requests.Add(1)
	s.fake.HTTPHandler().ServeHTTP(w, r)
}

// discard drops the emulator's log.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
