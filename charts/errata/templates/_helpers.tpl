{{- define "errata.name" -}}
{{- printf "%s-operator" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "errata.labels" -}}
app.kubernetes.io/name: errata-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "errata.selectorLabels" -}}
app.kubernetes.io/name: errata-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
