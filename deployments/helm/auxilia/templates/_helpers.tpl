{{/* Names, labels and the pieces the server's workloads share. */}}

{{- define "auxilia.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's resource name, at most 63 characters (a DNS label). */}}
{{- define "auxilia.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The migration Job and its Secret; a Job's name must stay a DNS label too. */}}
{{- define "auxilia.migrationName" -}}
{{- printf "%s-migrate" (include "auxilia.fullname" . | trunc 55 | trimSuffix "-") }}
{{- end }}

{{- define "auxilia.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "auxilia.selectorLabels" -}}
app.kubernetes.io/name: {{ include "auxilia.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "auxilia.labels" -}}
helm.sh/chart: {{ include "auxilia.chart" . }}
{{ include "auxilia.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "auxilia.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "auxilia.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "auxilia.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
The Secret and key each secret setting is read from: the named existing
Secret, or the chart's own.
*/}}
{{- define "auxilia.secretRef" -}}
{{- $setting := index .root.Values .setting -}}
name: {{ $setting.existingSecret | default (include "auxilia.fullname" .root) }}
key: {{ if $setting.existingSecret }}{{ $setting.existingSecretKey }}{{ else }}{{ .key }}{{ end }}
{{- end }}

{{/* Whether the chart makes its own Secret: some secret setting is given inline. */}}
{{- define "auxilia.ownSecret" -}}
{{- $v := .Values }}
{{- if or (and $v.database.url (not $v.database.existingSecret)) (and $v.secretKeys.value (not $v.secretKeys.existingSecret)) (and $v.bootstrapToken.value (not $v.bootstrapToken.existingSecret)) }}true{{ end }}
{{- end }}

{{- define "auxilia.hasBootstrapToken" -}}
{{- if or .Values.bootstrapToken.value .Values.bootstrapToken.existingSecret }}true{{ end }}
{{- end }}

{{/* Whether an optional value is given: neither null, absent nor "". */}}
{{- define "auxilia.isSet" -}}
{{- if not (or (kindIs "invalid" .) (and (kindIs "string" .) (eq . ""))) }}true{{ end }}
{{- end }}

{{/*
Settings the chart refuses, with the reason: a release that renders runs.
*/}}
{{- define "auxilia.validate" -}}
{{- $v := .Values }}
{{- if not (or $v.database.url $v.database.existingSecret) }}
{{- fail "database.url or database.existingSecret is required: the chart runs on Postgres (the embedded database does not fit several replicas)" }}
{{- end }}
{{- if and $v.database.url (not (or (hasPrefix "postgres://" $v.database.url) (hasPrefix "postgresql://" $v.database.url))) }}
{{- fail "database.url must be a postgres:// URL" }}
{{- end }}
{{- if not (or $v.secretKeys.value $v.secretKeys.existingSecret) }}
{{- fail "secretKeys.value or secretKeys.existingSecret is required: every replica must share the keys (make one with `auxilia keys generate`)" }}
{{- end }}
{{- $names := keys $v.env }}
{{- range $v.extraEnv }}
{{- $names = append $names .name }}
{{- end }}
{{- range $name := $names }}
{{- if has $name (list "DATABASE_URL" "AUXILIA_SECRET_KEYS" "AUXILIA_BOOTSTRAP_TOKEN") }}
{{- fail (printf "%s: give it through database, secretKeys or bootstrapToken, which keep it in a Secret" $name) }}
{{- else if eq $name "AUXILIA_LOCAL_PROVIDER" }}
{{- fail "AUXILIA_LOCAL_PROVIDER: the chart keeps the local provider off, since its sandboxes live on one pod's disk and runs land on any replica" }}
{{- else if has $name (list "AUXILIA_LISTEN" "AUXILIA_METRICS_LISTEN" "AUXILIA_DATA_DIR" "AUXILIA_SHUTDOWN_TIMEOUT") }}
{{- fail (printf "%s is set by the chart (see shutdownTimeoutSeconds for the shutdown timeout)" $name) }}
{{- end }}
{{- end }}
{{- /* After its shutdown timeout the server takes up to 5 s more to end open streams. */}}
{{- $needed := add $v.shutdownTimeoutSeconds $v.preStopSleepSeconds 5 | int }}
{{- if le (int $v.terminationGracePeriodSeconds) $needed }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds + shutdownTimeoutSeconds + 5 s for the server to end open streams (%d)" (int $v.terminationGracePeriodSeconds) $needed) }}
{{- end }}
{{- if and $v.podDisruptionBudget.enabled (include "auxilia.isSet" (get $v.podDisruptionBudget "maxUnavailable")) (include "auxilia.isSet" (get $v.podDisruptionBudget "minAvailable")) }}
{{- fail "podDisruptionBudget: set maxUnavailable or minAvailable, not both" }}
{{- end }}
{{- end }}

{{/*
The environment of every container that runs the binary. The migration Job
runs before the chart's own Secret exists, so it reads DATABASE_URL from a
Secret of its own (migration-secret.yaml) unless an existing one is named.
*/}}
{{- define "auxilia.env" -}}
{{- $root := .root -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- if and .migration (not $root.Values.database.existingSecret) }}
      name: {{ include "auxilia.migrationName" $root }}
      key: DATABASE_URL
      {{- else }}
      {{- include "auxilia.secretRef" (dict "root" $root "setting" "database" "key" "DATABASE_URL") | nindent 6 }}
      {{- end }}
- name: AUXILIA_DATA_DIR
  value: /var/lib/auxilia
- name: AUXILIA_LOCAL_PROVIDER
  value: "off"
{{- range $name, $value := $root.Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}
