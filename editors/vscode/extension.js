// Starts `ruleslang lsp` for .rules files and connects VS Code to it over stdio.
// The server does the work (diagnostics, hover, definitions, references, completion, and the
// code lens `ruleslang.runTest`, which VS Code sends back to the server as workspace/executeCommand).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("ruleslang");
  const command = config.get("server.command", "ruleslang");
  const args = ["lsp"];
  for (const folder of config.get("rulesets", [])) {
    args.push("--rulesets", folder);
  }
  const serverOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "ruleslang" }],
  };
  client = new LanguageClient("ruleslang", "ruleslang language server", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
