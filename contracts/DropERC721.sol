// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC2981} from "@openzeppelin/contracts/interfaces/IERC2981.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IDropERC721} from "./IDropERC721.sol";
import {ERC721Lean} from "./drop/ERC721Lean.sol";
import {DropArgs} from "./drop/DropArgs.sol";

/// @title Mintyard drop: an ERC-721 collection deployed as a clone by DropFactory.
/// @notice Token ids are sequential from 1. The minter (the project wallet) mints with
/// `mintTo`; anyone may `claim` under the owner's claim conditions. Claim proceeds stay here
/// until the owner withdraws them. Decision record: docs/contracts.md.
contract DropERC721 is ERC721Lean, IDropERC721, IERC2981, IERC4906 {
    using SafeERC20 for IERC20;

    // Storage is packed by use: mintTo reads and writes one word and a public claim reads one
    // more. Creation writes only these two; everything else starts in the clone's code
    // (DropArgs) and gets a storage copy, flagged in Config.flags, when the owner changes it.
    struct MintState {
        address minter;
        uint40 nextTokenId;
        uint40 maxSupply; // 0 = unlimited
        bool initialized;
    }

    struct Config {
        address owner;
        uint40 startTime;
        uint32 limitPerWallet; // 0 = unlimited
        uint8 flags;
    }

    struct Price {
        address currency; // 0 = native
        uint96 unitPrice;
    }

    struct Royalty {
        address recipient;
        uint16 bps;
    }

    uint8 private constant _ALLOWLIST_ONLY = 1; // the effective merkle root is non-zero
    uint8 private constant _CONDITIONS_STORED = 2; // currency, price and root are in storage
    uint8 private constant _ROYALTY_STORED = 4;
    uint8 private constant _BASE_URI_STORED = 8;
    uint256 private constant _MAX_BPS = 10_000;

    MintState private _mintState;
    Config private _config;
    Price private _price;
    bytes32 private _merkleRoot;
    Royalty private _royalty;
    uint256 private _burned;
    string private _baseURI;
    bytes32 private _blindBoxKey; // 0 until reveal (a zero key is never accepted)

    constructor() {
        // The implementation itself must never be initialised: lock it.
        _mintState.initialized = true;
    }

    modifier onlyOwner() {
        if (msg.sender != _config.owner) revert NotOwner(msg.sender);
        _;
    }

    /// Called once, by the factory, in the transaction that creates the clone. The clone's
    /// code already holds name, symbol, baseURI, mode, provenanceHash, royalty, currency,
    /// unitPrice and merkleRoot (DropArgs); this validates them and stores the rest.
    function initialize(InitParams calldata p) external {
        if (_mintState.initialized) revert AlreadyInitialized();
        if (p.owner == address(0)) revert InvalidOwner(address(0));
        if (p.royaltyBps > _MAX_BPS) revert RoyaltyTooHigh(p.royaltyBps);
        _mintState = MintState({minter: p.minter, nextTokenId: 1, maxSupply: p.maxSupply, initialized: true});
        _config = Config({
            owner: p.owner,
            startTime: p.startTime,
            limitPerWallet: p.limitPerWallet,
            flags: p.merkleRoot != bytes32(0) ? _ALLOWLIST_ONLY : 0
        });
        emit OwnershipTransferred(address(0), p.owner);
    }

    // ---------------------------------------------------------------- minting

    /// Mints `quantity` tokens to `to`; only the minter. Returns the first new id.
    function mintTo(address to, uint256 quantity) external returns (uint256 firstTokenId) {
        return _mintChecked(to, quantity, 0, true);
    }

    /// Mints `quantities[i]` tokens to `to[i]` for each i, ids sequential in array order; only
    /// the minter. Supply is checked for the whole batch (any excess reverts all of it) and the
    /// counter word is written once. Returns the first new id.
    function mintToMany(address[] calldata to, uint256[] calldata quantities) external returns (uint256 firstTokenId) {
        uint256 word;
        assembly ("memory-safe") {
            word := sload(_mintState.slot)
        }
        if (msg.sender != address(uint160(word))) revert NotMinter(msg.sender);
        uint256 entries = to.length;
        if (entries != quantities.length) revert LengthMismatch(entries, quantities.length);
        if (entries == 0) revert EmptyBatch();
        firstTokenId = uint40(word >> 160);
        uint256 maxSupply = uint40(word >> 200);
        // maxSupply caps ids ever minted (burns do not free supply); the counter is 40 bits.
        uint256 room = (maxSupply == 0 ? type(uint40).max : maxSupply + 1) - firstTokenId;
        uint256 total;
        unchecked {
            // total <= room throughout, so neither line can wrap.
            for (uint256 i; i < entries; ++i) {
                uint256 quantity = quantities[i];
                if (quantity == 0) revert InvalidQuantity();
                if (quantity > room - total) revert MaxSupplyExceeded(maxSupply);
                total += quantity;
            }
        }
        _mintMany(to, quantities, firstTokenId);
        assembly ("memory-safe") {
            sstore(_mintState.slot, add(word, shl(160, total)))
        }
    }

    /// Public claim. With no allowlist root: `unitPrice` each, at most `limitPerWallet` per
    /// recipient; `proof`, `allowedQuantity` and `allowedPrice` are ignored. With a root the
    /// drop is allowlist-only: `proof` must show the leaf (to, allowedQuantity, allowedPrice),
    /// which then replaces the price and the per-recipient limit. Payment must be exact.
    function claim(
        address to,
        uint256 quantity,
        bytes32[] calldata proof,
        uint256 allowedQuantity,
        uint256 allowedPrice
    ) external payable returns (uint256 firstTokenId) {
        (address currency, uint256 price) = _claimTerms(to, quantity, proof, allowedQuantity, allowedPrice);
        firstTokenId = _mintChecked(to, quantity, quantity, false);
        uint256 total = price * quantity; // quantity is below 2^40 once the mint check passed
        if (currency == address(0)) {
            if (msg.value != total) revert IncorrectPayment(total, msg.value);
        } else {
            if (msg.value != 0) revert IncorrectPayment(0, msg.value);
            // After the mint (checks-effects-interactions); the mint makes no external call.
            if (total != 0) IERC20(currency).safeTransferFrom(msg.sender, address(this), total);
        }
        emit TokensClaimed(msg.sender, to, firstTokenId, quantity, total);
    }

    /// Checks start time, allowlist proof and the per-recipient limit; returns what to charge.
    function _claimTerms(
        address to,
        uint256 quantity,
        bytes32[] calldata proof,
        uint256 allowedQuantity,
        uint256 allowedPrice
    ) private view returns (address currency, uint256 price) {
        // The fields straight off the slot (one SLOAD): a memory copy of the struct costs more.
        Config storage c = _config;
        (uint256 startTime, uint256 limitPerWallet, uint8 flags) = (c.startTime, c.limitPerWallet, c.flags);
        if (block.timestamp < startTime) revert ClaimNotStarted(startTime);
        bytes32 root;
        (currency, price, root) = _conditions(flags);
        uint256 limit = limitPerWallet == 0 ? type(uint256).max : limitPerWallet;
        if (flags & _ALLOWLIST_ONLY != 0) {
            // The leaf as @openzeppelin/merkle-tree's StandardMerkleTree builds it.
            bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(to, allowedQuantity, allowedPrice))));
            if (!MerkleProof.verifyCalldata(proof, root, leaf)) revert InvalidProof();
            price = allowedPrice;
            limit = allowedQuantity;
        }
        uint256 claimed = _numberClaimed(to);
        if (quantity > limit || claimed > limit - quantity) revert WalletLimitExceeded(limit, claimed);
    }

    /// Burns a token; its holder or an approved address (so only the holder in badge mode).
    function burn(uint256 tokenId) external {
        _burn(tokenId);
        unchecked {
            ++_burned;
        }
    }

    /// The hot path shared by mintTo and claim: one SLOAD and one SSTORE of the MintState word,
    /// handled raw (Solidity packs struct fields from the low bits: minter in bits 0-159,
    /// nextTokenId in 160-199, maxSupply in 200-239).
    function _mintChecked(address to, uint256 quantity, uint256 claimed, bool minterOnly)
        private
        returns (uint256 first)
    {
        uint256 word;
        assembly ("memory-safe") {
            word := sload(_mintState.slot)
        }
        if (minterOnly && msg.sender != address(uint160(word))) revert NotMinter(msg.sender);
        if (quantity == 0) revert InvalidQuantity();
        first = uint40(word >> 160);
        uint256 maxSupply = uint40(word >> 200);
        // maxSupply caps ids ever minted (burns do not free supply); the counter is 40 bits.
        uint256 cap = maxSupply == 0 ? type(uint40).max : maxSupply + 1;
        if (quantity > cap - first) revert MaxSupplyExceeded(maxSupply);
        assembly ("memory-safe") {
            sstore(_mintState.slot, add(word, shl(160, quantity)))
        }
        _mintBatch(to, first, quantity, claimed);
    }

    // ---------------------------------------------------------------- owner settings

    function setClaimConditions(ClaimConditions calldata c) external onlyOwner {
        uint256 minted = _mintState.nextTokenId - 1;
        if (c.maxSupply != 0 && c.maxSupply < minted) revert MaxSupplyBelowMinted(minted);
        _mintState.maxSupply = c.maxSupply;
        uint8 flags = (_config.flags & ~_ALLOWLIST_ONLY) | _CONDITIONS_STORED;
        if (c.merkleRoot != bytes32(0)) flags |= _ALLOWLIST_ONLY;
        _config.startTime = c.startTime;
        _config.limitPerWallet = c.limitPerWallet;
        _config.flags = flags;
        _price = Price(c.currency, c.unitPrice);
        _merkleRoot = c.merkleRoot;
        emit ClaimConditionsUpdated(c.unitPrice, c.currency, c.startTime, c.limitPerWallet, c.maxSupply, c.merkleRoot);
    }

    function setBaseURI(string calldata uri) external onlyOwner {
        _baseURI = uri;
        _config.flags |= _BASE_URI_STORED;
        emit BaseURIUpdated(uri);
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    /// Tells marketplaces (ERC-4906) that the metadata of ids [fromTokenId, toTokenId] changed
    /// off chain: MetadataUpdate for one id, BatchMetadataUpdate for a range. Ids need not be
    /// minted yet (ERC-4906 allows toTokenId = type(uint256).max for "all").
    function announceMetadataUpdate(uint256 fromTokenId, uint256 toTokenId) external onlyOwner {
        if (fromTokenId > toTokenId) revert InvalidTokenRange(fromTokenId, toTokenId);
        if (fromTokenId == toTokenId) emit MetadataUpdate(fromTokenId);
        else emit BatchMetadataUpdate(fromTokenId, toTokenId);
    }

    /// Publishes the blind-box key committed at creation: keccak256(abi.encodePacked(key))
    /// must equal provenanceHash(), so anyone can check the reveal against the commitment.
    /// Once only; every token's metadata is announced as changed.
    function reveal(bytes32 key) external onlyOwner {
        if (_blindBoxKey != bytes32(0)) revert AlreadyRevealed();
        bytes32 committed = DropArgs.provenanceHash();
        if (committed == bytes32(0)) revert NoProvenanceHash();
        // A zero key is refused even if it matches: its hash is public, so it commits to nothing,
        // and a stored zero could not be told apart from "not revealed".
        if (key == bytes32(0) || keccak256(abi.encodePacked(key)) != committed) revert InvalidRevealKey();
        _blindBoxKey = key;
        emit Revealed(key);
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    function setRoyalty(address recipient, uint16 bps) external onlyOwner {
        if (bps > _MAX_BPS) revert RoyaltyTooHigh(bps);
        _royalty = Royalty(recipient, bps);
        _config.flags |= _ROYALTY_STORED;
        emit RoyaltyUpdated(recipient, bps);
    }

    function setMinter(address newMinter) external onlyOwner {
        emit MinterUpdated(_mintState.minter, newMinter);
        _mintState.minter = newMinter;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert InvalidOwner(address(0));
        emit OwnershipTransferred(_config.owner, newOwner);
        _config.owner = newOwner;
    }

    /// Sends this drop's whole balance of `currency` (0 = native) to `to`.
    function withdraw(address currency, address to) external onlyOwner {
        uint256 amount;
        if (currency == address(0)) {
            amount = address(this).balance;
            (bool ok,) = to.call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        } else {
            amount = IERC20(currency).balanceOf(address(this));
            IERC20(currency).safeTransfer(to, amount);
        }
        emit Withdrawn(currency, to, amount);
    }

    // ---------------------------------------------------------------- views

    function name() external view returns (string memory) {
        return DropArgs.name();
    }

    function symbol() external view returns (string memory) {
        return DropArgs.symbol();
    }

    function mode() external view returns (Mode) {
        return DropArgs.mode();
    }

    function provenanceHash() external view returns (bytes32) {
        return DropArgs.provenanceHash();
    }

    /// The blind-box key once `reveal` has published it, else zero (so non-zero = revealed).
    /// keccak256(abi.encodePacked(blindBoxKey())) == provenanceHash().
    function blindBoxKey() external view returns (bytes32) {
        return _blindBoxKey;
    }

    function baseURI() public view returns (string memory) {
        return _config.flags & _BASE_URI_STORED != 0 ? _baseURI : DropArgs.baseURI();
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        if (!_exists(tokenId)) revert ERC721NonexistentToken(tokenId);
        string memory base = baseURI();
        return bytes(base).length == 0 ? "" : string.concat(base, Strings.toString(tokenId));
    }

    function owner() external view returns (address) {
        return _config.owner;
    }

    function minter() external view returns (address) {
        return _mintState.minter;
    }

    function claimConditions() external view returns (ClaimConditions memory) {
        Config memory c = _config;
        (address currency, uint256 price, bytes32 root) = _conditions(c.flags);
        return ClaimConditions({
            unitPrice: uint96(price),
            currency: currency,
            startTime: c.startTime,
            limitPerWallet: c.limitPerWallet,
            maxSupply: _mintState.maxSupply,
            merkleRoot: root
        });
    }

    /// Tokens `to` has received through `claim` (the count the per-wallet limits apply to).
    function claimedBy(address to) external view returns (uint256) {
        return _numberClaimed(to);
    }

    function totalMinted() public view returns (uint256) {
        return _mintState.nextTokenId - 1;
    }

    function totalSupply() external view returns (uint256) {
        return totalMinted() - _burned;
    }

    function royaltyInfo(uint256, uint256 salePrice) external view returns (address, uint256) {
        (address recipient, uint256 bps) =
            _config.flags & _ROYALTY_STORED != 0 ? (_royalty.recipient, _royalty.bps) : DropArgs.royalty();
        return (recipient, salePrice * bps / _MAX_BPS);
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721Lean, IERC165) returns (bool) {
        // ERC-4906's id is fixed by the standard: IERC4906 declares no functions of its own,
        // so type(IERC4906).interfaceId would be 0.
        return interfaceId == type(IERC2981).interfaceId || interfaceId == bytes4(0x49064906)
            || super.supportsInterface(interfaceId);
    }

    /// Effective currency, unit price and allowlist root: the owner's copy once set, else the
    /// creation-time values in the code.
    function _conditions(uint8 flags) private view returns (address currency, uint256 price, bytes32 root) {
        if (flags & _CONDITIONS_STORED == 0) return DropArgs.conditions();
        Price memory p = _price;
        // The root is only read when it matters (an allowlist-only drop).
        return (p.currency, p.unitPrice, flags & _ALLOWLIST_ONLY != 0 ? _merkleRoot : bytes32(0));
    }

    function _nextTokenId() internal view override returns (uint256) {
        return _mintState.nextTokenId;
    }

    function _checkTransferable() internal view override {
        if (DropArgs.mode() == Mode.Badge) revert Soulbound();
    }
}
