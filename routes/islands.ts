/**
 * The server-side stand-ins of the islands: pages and layouts render these, and each one records
 * itself so that the page ships its chunk and props. The name is the file name in islands/.
 */
import AvatarComponent from "../islands/Avatar.tsx";
import ColorModeToggleComponent from "../islands/ColorModeToggle.tsx";
import NotificationQueueComponent from "../islands/NotificationQueue.tsx";
import { island } from "../server/render/islands.tsx";

export const Avatar = island("Avatar", AvatarComponent);
export const ColorModeToggle = island("ColorModeToggle", ColorModeToggleComponent);
export const NotificationQueue = island("NotificationQueue", NotificationQueueComponent);
