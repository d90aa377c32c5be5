-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "request_limit" INTEGER,
ADD COLUMN     "request_window_seconds" INTEGER,
ADD COLUMN     "websocket_connection_limit" INTEGER;
