/**
 * Response negotiation that is not about media types: whether a response is indented, as
 * k8s.io/apiserver's `endpoints/handlers/negotiation.isPrettyPrint` decides.
 */

/** strconv.ParseBool: these spellings only; anything else is an error (which reads as false). */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * `pretty` when given (Go's ParseBool, so `True` and `1` count, and `yes` does not); otherwise
 * the user agents of people at a terminal or a browser (curl, Wget, Mozilla/5.0) get indented
 * JSON, as from kube-apiserver.
 */
export function isPrettyPrint(q: URLSearchParams, userAgent: string | undefined): boolean {
  const pp = q.get('pretty');
  if (pp) return GO_TRUE.has(pp);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
