// The host page of the browser check (bundled by check.mjs, never shipped): the official host
// half of the MCP Apps SDK, AppBridge, showing the view in a sandboxed iframe of another origin
// and passing its tool calls to the check (window.hostCallTool, which calls the real server
// through the official TypeScript SDK client) unless told to refuse them.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const setup = window.hostSetup;
const iframe = document.createElement("iframe");
iframe.setAttribute("sandbox", "allow-scripts");
iframe.style.cssText = `border:0;width:${setup.width}px;height:${setup.height}px;display:block`;
document.body.append(iframe);

const bridge = new AppBridge(
  null,
  { name: "botmesh-ui-check", version: "1" },
  { serverTools: {}, updateModelContext: { text: {} }, logging: {} },
  {
    hostContext: {
      theme: setup.theme,
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width: setup.width, maxHeight: setup.height },
      platform: "web",
    },
  },
);
window.hostLog = [];
window.refuseCalls = false;
bridge.oncalltool = async (params) => {
  window.hostLog.push({ call: params.name });
  if (window.refuseCalls) throw new Error("the person declined this tool call");
  return window.hostCallTool(params);
};
bridge.onupdatemodelcontext = async (params) => {
  window.hostLog.push({ context: params });
  return {};
};
bridge.onsizechange = ({ height }) => {
  if (height != null) iframe.style.height = `${Math.min(height, setup.height)}px`;
};
bridge.onloggingmessage = (params) => window.hostLog.push({ log: params });
bridge.oninitialized = async () => {
  await bridge.sendToolInput({ arguments: setup.input });
  await bridge.sendToolResult(setup.result);
  window.hostReady = true;
};
window.bridge = bridge;
await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
iframe.src = setup.viewUrl;
