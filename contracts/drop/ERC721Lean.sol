// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

/// @notice A lean ERC721A-style core: sequential ids, and a batch mint writes one ownership
/// word and one balance word however many tokens it makes, so an extra token costs little
/// more than its Transfer log. It keeps no constructor-set storage (its one immutable lives in
/// the code that clones delegate to), so it works behind clones.
/// The id counter lives in the derived contract (`_nextTokenId`), which packs it with the
/// fields its mint path reads.
abstract contract ERC721Lean is IERC721Metadata, IERC721Errors {
    // Ownership word, written at the first id of each batch and wherever a transfer or burn
    // splits a batch: owner (bits 0-159) | burned (bit 160) | next slot initialised (bit 161).
    // An id whose word is zero belongs to the nearest lower id with a word.
    uint256 private constant _BURNED = 1 << 160;
    uint256 private constant _NEXT_INITIALIZED = 1 << 161;
    // Address word: balance (bits 0-63) | tokens claimed through the public claim (bits 64-127),
    // so a claim updates the holder's balance and claim count in one storage write.
    uint256 private constant _COUNT_MASK = (1 << 64) - 1;
    uint256 private constant _ADDRESS_MASK = (1 << 160) - 1;
    // keccak256("Transfer(address,address,uint256)"), a literal because assembly needs one.
    bytes32 private constant _TRANSFER_EVENT = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;

    // The same topic for _mintMany's log loop, held as an immutable: a fourth PUSH32 of the
    // literal makes solc's constant optimiser (200 runs) serve every copy by CODECOPY instead,
    // about 30 gas more per Transfer log on every mint and transfer.
    bytes32 private immutable _TRANSFER_TOPIC = _TRANSFER_EVENT;

    mapping(uint256 tokenId => uint256) private _ownerships;
    mapping(address holder => uint256) private _addressData;
    mapping(uint256 tokenId => address) private _tokenApprovals;
    mapping(address holder => mapping(address operator => bool)) private _operatorApprovals;

    /// Id the next mint gets; every id in [1, _nextTokenId()) has been minted.
    function _nextTokenId() internal view virtual returns (uint256);

    /// Hook: revert to disable transfers and approvals (badge mode).
    function _checkTransferable() internal view virtual {}

    function supportsInterface(bytes4 interfaceId) public view virtual returns (bool) {
        return interfaceId == type(IERC165).interfaceId || interfaceId == type(IERC721).interfaceId
            || interfaceId == type(IERC721Metadata).interfaceId;
    }

    function balanceOf(address holder) public view returns (uint256) {
        if (holder == address(0)) revert ERC721InvalidOwner(address(0));
        return _addressData[holder] & _COUNT_MASK;
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        return address(uint160(_ownershipOf(tokenId)));
    }

    function getApproved(uint256 tokenId) public view returns (address) {
        _ownershipOf(tokenId);
        return _tokenApprovals[tokenId];
    }

    function isApprovedForAll(address holder, address operator) public view returns (bool) {
        return _operatorApprovals[holder][operator];
    }

    function approve(address to, uint256 tokenId) public {
        _checkTransferable();
        address holder = ownerOf(tokenId);
        if (msg.sender != holder && !_operatorApprovals[holder][msg.sender]) revert ERC721InvalidApprover(msg.sender);
        _tokenApprovals[tokenId] = to;
        emit Approval(holder, to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) public {
        _checkTransferable();
        if (operator == address(0)) revert ERC721InvalidOperator(address(0));
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        _checkTransferable();
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        uint256 prev = _ownershipOf(tokenId);
        if (address(uint160(prev)) != from) revert ERC721IncorrectOwner(from, tokenId, address(uint160(prev)));
        _clearApproval(from, tokenId);
        unchecked {
            // `from` holds this token, so its balance is at least 1.
            --_addressData[from];
            ++_addressData[to];
        }
        _ownerships[tokenId] = uint256(uint160(to)) | _NEXT_INITIALIZED;
        _pinNext(tokenId, prev);
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) public {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        if (to.code.length != 0) _checkReceiver(from, to, tokenId, data);
    }

    /// Mints [firstId, firstId + quantity) to `to` and adds `claimed` to its claim count.
    /// The caller has checked the counter; no receiver callback (mints never re-enter).
    function _mintBatch(address to, uint256 firstId, uint256 quantity, uint256 claimed) internal {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        unchecked {
            // quantity and claimed are below 2^40 (the id counter's width): no carry between fields.
            _addressData[to] += quantity | (claimed << 64);
        }
        // A single token's next id is either the next batch's start or not minted yet.
        _ownerships[firstId] = uint256(uint160(to)) | (quantity == 1 ? _NEXT_INITIALIZED : 0);
        assembly ("memory-safe") {
            let owner := and(to, _ADDRESS_MASK)
            let end := add(firstId, quantity)
            for { let id := firstId } lt(id, end) { id := add(id, 1) } { log4(0, 0, _TRANSFER_EVENT, 0, owner, id) }
        }
    }

    /// Mints `quantities[i]` tokens to `to[i]` for each i, ids from `firstId` on in array order.
    /// Per entry: one balance word, one ownership word and a Transfer log per token, the same
    /// writes as `_mintBatch`. The caller has checked that the lengths match, that every
    /// quantity is at least 1 and that the total fits the id counter.
    function _mintMany(address[] calldata to, uint256[] calldata quantities, uint256 firstId) internal {
        bytes32 topic = _TRANSFER_TOPIC;
        assembly ("memory-safe") {
            let next := firstId
            let toAt := to.offset
            let quantityAt := quantities.offset
            for { let end := add(toAt, shl(5, to.length)) } lt(toAt, end) {
                toAt := add(toAt, 0x20)
                quantityAt := add(quantityAt, 0x20)
            } {
                let owner := calldataload(toAt)
                if or(iszero(owner), shr(160, owner)) {
                    // A dirty address word is malformed calldata; address(0) cannot receive.
                    if shr(160, owner) { revert(0, 0) }
                    mstore(0, 0x64a0ae92) // ERC721InvalidReceiver(address(0))
                    mstore(0x20, 0)
                    revert(0x1c, 0x24)
                }
                let quantity := calldataload(quantityAt)
                // Below 2^40 (the caller checked the total): no carry into the claim count.
                mstore(0, owner)
                mstore(0x20, _addressData.slot)
                let balanceSlot := keccak256(0, 0x40)
                sstore(balanceSlot, add(sload(balanceSlot), quantity))
                // A single token's next id is the next entry's start or not minted yet.
                mstore(0, next)
                mstore(0x20, _ownerships.slot)
                sstore(keccak256(0, 0x40), or(owner, mul(eq(quantity, 1), _NEXT_INITIALIZED)))
                for { let last := add(next, quantity) } lt(next, last) { next := add(next, 1) } {
                    log4(0, 0, topic, 0, owner, next)
                }
            }
        }
    }

    /// Burns `tokenId` if the caller is its holder or approved. Returns the former holder.
    function _burn(uint256 tokenId) internal returns (address holder) {
        uint256 prev = _ownershipOf(tokenId);
        holder = address(uint160(prev));
        _clearApproval(holder, tokenId);
        unchecked {
            --_addressData[holder];
        }
        _ownerships[tokenId] = uint256(uint160(holder)) | _BURNED | _NEXT_INITIALIZED;
        _pinNext(tokenId, prev);
        emit Transfer(holder, address(0), tokenId);
    }

    function _numberClaimed(address holder) internal view returns (uint256) {
        return (_addressData[holder] >> 64) & _COUNT_MASK;
    }

    function _exists(uint256 tokenId) internal view returns (bool) {
        if (tokenId == 0 || tokenId >= _nextTokenId()) return false;
        return _scan(tokenId) & _BURNED == 0;
    }

    function _ownershipOf(uint256 tokenId) internal view returns (uint256 packed) {
        if (tokenId != 0 && tokenId < _nextTokenId()) {
            packed = _scan(tokenId);
            if (packed & _BURNED == 0) return packed;
        }
        revert ERC721NonexistentToken(tokenId);
    }

    /// Walks down to the word that holds `tokenId`'s owner. Id 1 always has one.
    function _scan(uint256 tokenId) private view returns (uint256 packed) {
        unchecked {
            while ((packed = _ownerships[tokenId]) == 0) --tokenId;
        }
    }

    /// Reverts unless the caller is `holder`, its operator or the token's approved address,
    /// and clears the token's approval.
    function _clearApproval(address holder, uint256 tokenId) private {
        address approved = _tokenApprovals[tokenId];
        if (msg.sender != holder && msg.sender != approved && !_operatorApprovals[holder][msg.sender]) {
            revert ERC721InsufficientApproval(msg.sender, tokenId);
        }
        if (approved != address(0)) delete _tokenApprovals[tokenId];
    }

    /// Before `tokenId`'s word changes, give the next id its own word if it relied on this one.
    function _pinNext(uint256 tokenId, uint256 prev) private {
        if (prev & _NEXT_INITIALIZED == 0) {
            unchecked {
                uint256 next = tokenId + 1;
                if (_ownerships[next] == 0 && next < _nextTokenId()) _ownerships[next] = prev;
            }
        }
    }

    function _checkReceiver(address from, address to, uint256 tokenId, bytes memory data) private {
        try IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data) returns (bytes4 answer) {
            if (answer != IERC721Receiver.onERC721Received.selector) revert ERC721InvalidReceiver(to);
        } catch (bytes memory reason) {
            if (reason.length == 0) revert ERC721InvalidReceiver(to);
            assembly ("memory-safe") {
                revert(add(reason, 32), mload(reason))
            }
        }
    }
}
