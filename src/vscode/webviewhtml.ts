/**
 * The page of a Reconcile Studio webview: one bundled script and stylesheet from dist/webviews,
 * a strict Content-Security-Policy (no inline code, scripts only with this page's nonce,
 * resources only from the extension), and an empty `#app` the script renders into.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function webviewHtml(
  webview: vscode.Webview,
  root: vscode.Uri,
  page: { bundle: string; title: string },
): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, `${page.bundle}.js`));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, `${page.bundle}.css`));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>${page.title}</title>
</head>
<body>
<main id="app" aria-label="${page.title}"></main>
<script type="module" nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
