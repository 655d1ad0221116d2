package localfleet

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// apiServer is one real kube-apiserver with its own etcd, started by envtest
// from the binaries in Config.AssetsDir.
type apiServer struct {
	name       string
	env        *envtest.Environment
	admin      *rest.Config
	kubeconfig []byte // admin credentials, written to <dir>/<name>.kubeconfig
	client     client.Client
}

func startAPIServer(cfg Config, name string, crdDirs []string, scheme *runtime.Scheme) (*apiServer, error) {
	env := &envtest.Environment{
		BinaryAssetsDirectory: cfg.AssetsDir,
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	if _, err := env.Start(); err != nil {
		return nil, fmt.Errorf("start %s kube-apiserver: %w", name, err)
	}
	s := &apiServer{name: name, env: env}
	// An admin user with a client certificate: the kubeconfig the Fleet API
	// hands out (listCredentials) and the hub agent use.
	// client-go's default 5 requests/s would make a few hundred members take
	// minutes to join and a heartbeat round far longer than its period. On
	// loopback the member agents' bounded pool, not this limiter, paces them.
	base := &rest.Config{QPS: 2000, Burst: 2000}
	user, err := env.ControlPlane.AddUser(envtest.User{Name: name + "-admin", Groups: []string{"system:masters"}}, base)
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s admin user: %w", name, err)
	}
	if s.kubeconfig, err = user.KubeConfig(); err != nil {
		s.stop()
		return nil, err
	}
	s.admin = user.Config()
	if s.client, err = client.New(s.admin, client.Options{Scheme: scheme}); err != nil {
		s.stop()
		return nil, err
	}
	if err := os.WriteFile(s.kubeconfigPath(cfg.Dir), s.kubeconfig, 0o600); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *apiServer) kubeconfigPath(dir string) string {
	return filepath.Join(dir, s.name+".kubeconfig")
}

func (s *apiServer) stop() {
	if s != nil && s.env != nil {
		_ = s.env.Stop()
	}
}
