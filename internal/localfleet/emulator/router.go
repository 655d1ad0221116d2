package emulator

import (
	"net/http"
	"strings"
)

// params are the {name} segments a route captured.
type params map[string]string

// handlerFunc serves one ARM operation; a returned error is answered in
// ARM's error shape.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p params) error

// apiVersions says which api-version query values a route accepts. Every
// ARM request must carry one; nil accepts any.
type apiVersions []string

type route struct {
	method   string
	pattern  string
	segments []string
	versions apiVersions
	handler  handlerFunc
}

// router matches ARM paths against patterns such as
// "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/{fleetName}".
// Literal segments match case-insensitively, as ARM's do.
type router struct{ routes []*route }

func (rt *router) handle(method, pattern string, versions apiVersions, h handlerFunc) {
	rt.routes = append(rt.routes, &route{
		method: method, pattern: pattern, segments: splitPath(pattern), versions: versions, handler: h,
	})
}

// match finds the route for method and path. When the path matches some
// pattern but not for this method, it returns nil with pathKnown set.
func (rt *router) match(method, path string) (r *route, p params, pathKnown bool) {
	segs := splitPath(path)
	for _, rte := range rt.routes {
		got, ok := rte.matchPath(segs)
		if !ok {
			continue
		}
		pathKnown = true
		if rte.method == method {
			return rte, got, true
		}
	}
	return nil, nil, pathKnown
}

func (rte *route) matchPath(segs []string) (params, bool) {
	if len(segs) != len(rte.segments) {
		return nil, false
	}
	var p params
	for i, want := range rte.segments {
		if strings.HasPrefix(want, "{") && strings.HasSuffix(want, "}") {
			if segs[i] == "" {
				return nil, false
			}
			if p == nil {
				p = params{}
			}
			p[want[1:len(want)-1]] = segs[i]
			continue
		}
		if !strings.EqualFold(want, segs[i]) {
			return nil, false
		}
	}
	return p, true
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
