package daytonatest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// OpUpdateNetworkSettings is POST /sandbox/{id}/network-settings.
const OpUpdateNetworkSettings = "updateNetworkSettings"

// updateNetworkSettings changes a sandbox's network settings as Daytona's
// does: sandbox.controller.ts (updateNetworkSettings: the tier's refusal,
// then "At least one of …"), UpdateSandboxNetworkSettingsDto's
// validators (apps/api/src/sandbox/dto/update-sandbox-network-settings.dto.ts)
// and sandbox.service.ts's updateNetworkSettings (what each member clears),
// answering 200 with the sandbox.
func (s *Server) updateNetworkSettings(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		apiError(w, r, http.StatusBadRequest, err.Error())
		return
	}
	var blockAll *bool
	var allowList, domainAllowList *string
	for key, target := range map[string]any{"networkBlockAll": &blockAll, "networkAllowList": &allowList, "domainAllowList": &domainAllowList} {
		v, ok := raw[key]
		if !ok {
			continue
		}
		if json.Unmarshal(v, target) != nil || string(v) == "null" {
			kind := "a string"
			if key == "networkBlockAll" {
				kind = "a boolean value"
			}
			apiError(w, r, http.StatusBadRequest, key+" must be "+kind)
			return
		}
	}
	switch {
	case s.opts.LimitedNetworkEgress:
		apiError(w, r, http.StatusBadRequest, networkRestricted)
		return
	case blockAll == nil && allowList == nil && domainAllowList == nil:
		apiError(w, r, http.StatusBadRequest, "At least one of networkBlockAll, networkAllowList or domainAllowList must be provided")
		return
	}
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	if allowList != nil && strings.TrimSpace(*allowList) != "" {
		if msg := networkAllowListError(allowList); msg != "" {
			apiError(w, r, http.StatusBadRequest, msg)
			return
		}
	}
	next := sb.network
	if domainAllowList != nil {
		next.DomainAllowList = strings.TrimSpace(*domainAllowList)
	}
	if blockAll != nil {
		next.BlockAll = *blockAll
		if *blockAll {
			next.AllowList = ""
		}
	}
	switch {
	case allowList != nil && strings.TrimSpace(*allowList) == "":
		next.AllowList = ""
	case allowList != nil:
		next.AllowList, next.BlockAll = *allowList, false
	case blockAll != nil && !*blockAll:
		next.AllowList = ""
	}
	sb.network = next
	writeJSON(w, http.StatusOK, s.dto(sb))
}
