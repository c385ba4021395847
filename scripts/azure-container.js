// Creates a blob container on an Azure Blob endpoint with a Shared Key signature (Azurite in the tests).
// usage: node azure-container.js http://127.0.0.1:PORT/ACCOUNT ACCOUNT BASE64KEY CONTAINER
"use strict";
const crypto = require("crypto");
const http = require("http");
const [endpoint, account, key, container] = process.argv.slice(2);
if (!container) {
  console.error("usage: node azure-container.js ENDPOINT ACCOUNT KEY CONTAINER");
  process.exit(2);
}
const url = new URL(`${endpoint.replace(/\/$/, "")}/${container}?restype=container`);
const date = new Date().toUTCString();
const version = "2021-08-06";
// Shared Key string to sign: verb, 11 standard headers (empty), canonical x-ms headers, resource.
const canonicalHeaders = `x-ms-date:${date}\nx-ms-version:${version}\n`;
const resource = `/${account}${url.pathname}\nrestype:container`;
const toSign = ["PUT", "", "", "", "", "", "", "", "", "", "", ""].join("\n") + "\n" + canonicalHeaders + resource;
const signature = crypto.createHmac("sha256", Buffer.from(key, "base64")).update(toSign, "utf8").digest("base64");
const req = http.request(
  url,
  {
    method: "PUT",
    headers: {
      "x-ms-date": date,
      "x-ms-version": version,
      "Content-Length": 0,
      Authorization: `SharedKey ${account}:${signature}`,
    },
  },
  (res) => {
    let body = "";
    res.on("data", (d) => (body += d));
    res.on("end", () => {
      // 201 Created, or 409 when it is already there.
      if (res.statusCode === 201 || res.statusCode === 409) process.exit(0);
      console.error(`cannot create container ${container}: HTTP ${res.statusCode} ${body.slice(0, 300)}`);
      process.exit(1);
    });
  }
);
req.on("error", (e) => {
  console.error(`cannot reach ${endpoint}: ${e.message}`);
  process.exit(1);
});
req.end();
